import type { IApproval, TApprovalDecisionRecord } from "../contracts/index.js";
import type { IQuorumProgress } from "./approval-commands.js";
import { decided } from "./approval-decided.js";
import type { TApprovalTransition } from "./approval-effects.js";
import { alreadyVoted, refusalOfStatus, staleInput } from "./approval-refusals.js";

/**
 * The vote script's answer to one vote of a quorum (approver rules asking for more than one approver).
 * partial: the approval stays pending, with the quorum's progress; complete: this vote completed it, and
 * its decision is committed (the call then runs, once); settled: another voter completed or ended it a
 * moment ago, so its decision is committed again (a no-op unless that voter died before committing) and
 * this vote did not count; already-voted: this approver already counts in this round; stale: the round acts
 * on another input than the vote was sent for (an edit landed since the approver read it), not counted.
 */
export function voteTransition(
  record: IApproval,
  approver: string,
  result:
    | { outcome: "partial" | "complete" | "settled" | "already-voted"; quorum: IQuorumProgress }
    | { outcome: "stale"; inputHash: string; sentInputHash: string }
    | { outcome: "refused"; status: string },
  now: number,
): TApprovalTransition {
  const { approvalId } = record;
  switch (result.outcome) {
    case "refused":
      return { ok: false, refusal: refusalOfStatus(approvalId, result.status) };
    case "stale":
      // Refused in the vote's own step: the vote did not count.
      return { ok: false, refusal: staleInput(approvalId, result.inputHash, result.sentInputHash) };
    case "already-voted":
      return {
        ok: false,
        refusal: alreadyVoted(approvalId, approver, result.quorum.required, result.quorum.votes.length),
      };
    case "partial":
      return {
        ok: true,
        record: { ...record, quorum: quorumViewOf(result.quorum) },
        effects: [],
        events: undefined,
      };
    case "complete":
    case "settled": {
      const decision = settledDecisionOf(result.quorum, now);
      const transition = decided(record, decision, { checkExpiry: true, decidedBefore: true });
      if (!transition.ok) return transition;
      const record_ = { ...transition.record, quorum: quorumViewOf(result.quorum) };
      if (result.outcome === "complete") return { ...transition, record: record_ };
      // Another voter's decision, committed again in case that voter died first; this vote did not count.
      const refused = refusalOfStatus(approvalId, decision.decision);
      return {
        ...transition,
        record: record_,
        effects: [...transition.effects, { type: "refuse", refusal: refused }],
      };
    }
  }
}

/**
 * The decision a settled quorum ends with: the reject's (or refused edit's) as it was cast, else an
 * approval by the last vote counted, of the input the round's first vote edited (if it did).
 */
export function settledDecisionOf(quorum: IQuorumProgress, now: number): TApprovalDecisionRecord {
  if (quorum.settled === "decision" && quorum.settlingDecision !== undefined) return quorum.settlingDecision;
  const last = quorum.votes.at(-1);
  const edit = quorum.votes[0];
  return {
    decision: "approved",
    approver: last?.approver ?? "",
    decidedAt: last?.decidedAt ?? now,
    ...(last?.comment !== undefined ? { comment: last.comment } : {}),
    ...(edit?.editedInput !== undefined ? { editedInput: edit.editedInput } : {}),
    ...(edit?.verdictOnEdit !== undefined ? { verdictOnEdit: edit.verdictOnEdit } : {}),
  };
}

/** What the approval shows of a quorum's progress. */
export function quorumViewOf(quorum: IQuorumProgress): NonNullable<IApproval["quorum"]> {
  return {
    required: quorum.required,
    approvals: quorum.votes,
    ...(quorum.earlier.length > 0 ? { earlierVotes: quorum.earlier } : {}),
  };
}
