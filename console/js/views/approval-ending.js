// What the approval page says when an approval it shows as pending ends without this page deciding it:
// each way it can end in its own words. "Another reviewer decided first" is kept for a decision a
// person made; an expiry or a cancelled run decided nothing and reads as what it was.

import { clockTime } from "../format.js";
import { decisionLine } from "./approval-parts.js";

/**
 * @param {any} approval  the approval as read after it ended
 * @param {string} me  the signed-in subject
 * @param {string} [refusedAs]  the status a refused decision named (409 `details.status`): an approval
 *   past its expiry is refused as expired before the record says so
 * @returns {{ kind: "done" | "notice", text: string }}
 */
export function endingOf(approval, me, refusedAs) {
  const status = approval.status === "pending" ? refusedAs : approval.status;
  const undecided = undecidedEnding(status, approval.decision?.decidedAt ?? approval.expiresAt);
  if (undecided) return { kind: "notice", text: undecided };
  if (approval.status === "pending" || !approval.decision)
    return { kind: "notice", text: "Another reviewer decided first." };
  const votedHere = (approval.quorum?.approvals ?? []).some((vote) => vote.approver === me);
  if (votedHere && status !== "rejected" && approval.decision.approver !== me)
    return { kind: "done", text: `The quorum is complete: ${decisionLine(approval)}.` };
  if (approval.decision.approver === me)
    return {
      kind: "notice",
      text: `You decided this already (in another tab, or with a link): ${decisionLine(approval)}.`,
    };
  return { kind: "notice", text: `Another reviewer decided first: ${decisionLine(approval)}.` };
}

/**
 * An approval no person decided, in its own words; undefined for a person's decision.
 * @param {string | undefined} status
 * @param {number} at  when it ended (or, for an expiry not yet written, when it was due to)
 */
export function undecidedEnding(status, at) {
  if (status === "expired")
    return `This approval expired before anyone decided (${clockTime(at)}): the call did not run, and the model is told so.`;
  if (status === "cancelled")
    return "The run was cancelled: this approval was withdrawn, and the call did not run.";
  return undefined;
}
