import { TollgateError } from "../errors/index.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import {
  type IApproval,
  type IQuorumState,
  pendingWithQuorum,
  quorumViewOf,
  settledDecisionOf,
  type TApprovalDecisionRecord,
  type TQuorumVote,
  type TVoteRequest,
} from "../store/index.js";
import { alreadyDecided, recordDecision } from "./record-decision.js";

/**
 * One decision of an approval whose tool needs `required` distinct approvers. An approval is a vote: it
 * answers the approval still pending with the quorum's progress, until the vote that completes it, which
 * records the final decision (the call then runs, once). A reject, or an edit the policy refused, ends it
 * at once. An edit starts the count again with the editor's vote: the votes after it approve the edited
 * input. Votes are serialised in Redis (one script), so concurrent voters lose no vote and exactly one of
 * them completes the quorum; a voter already counted gets TG_APPROVAL_ALREADY_VOTED.
 */
export async function castVote(
  runtime: ITollgateRuntime,
  approval: IApproval,
  decision: TApprovalDecisionRecord,
  required: number,
): Promise<IApproval> {
  const approvalId = approval.approvalId;
  const vote: TQuorumVote = {
    approver: decision.approver ?? "",
    decidedAt: decision.decidedAt,
    ...(decision.comment !== undefined ? { comment: decision.comment } : {}),
    ...(decision.editedInput !== undefined ? { editedInput: decision.editedInput } : {}),
    ...(decision.verdictOnEdit !== undefined ? { verdictOnEdit: decision.verdictOnEdit } : {}),
  };
  const request: TVoteRequest =
    decision.decision !== "approved"
      ? { kind: "settle", vote, required, decision }
      : { kind: decision.editedInput !== undefined ? "edit" : "vote", vote, required };
  const result = await runtime.approvalVotes.vote(approvalId, request);
  switch (result.outcome) {
    case "refused":
      if (result.status === "missing") {
        throw new TollgateError("TG_APPROVAL_NOT_FOUND", `No approval has id ${approvalId}.`, { approvalId });
      }
      throw alreadyDecided(approvalId, result.status);
    case "already-voted":
      throw new TollgateError(
        "TG_APPROVAL_ALREADY_VOTED",
        `"${vote.approver}" already approved approval ${approvalId}: it needs ${result.state.required} ` +
          `distinct approvers (${result.state.votes.length} so far).`,
        { approvalId, required: result.state.required, approvals: result.state.votes.length },
      );
    case "partial":
      return pendingWithQuorum(approval, quorumViewOf(result.state));
    case "complete":
      return settleQuorum(runtime, approval, result.state);
    case "settled":
      // Another voter completed or ended the quorum a moment ago; its decision is recorded (again, a
      // no-op unless that voter died before recording it), and this vote did not count.
      await settleQuorum(runtime, approval, result.state);
      throw alreadyDecided(approvalId, settledDecisionOf(result.state).decision);
  }
}

/** Records a settled quorum's decision; the voter whose decision was recorded by another caller gets it too. */
async function settleQuorum(
  runtime: ITollgateRuntime,
  approval: IApproval,
  state: IQuorumState,
): Promise<IApproval> {
  const { approvalId } = approval;
  const decision = settledDecisionOf(state);
  try {
    const decided = await recordDecision(runtime, approvalId, decision, approval);
    return { ...decided, quorum: quorumViewOf(state) };
  } catch (error) {
    if (!(error instanceof TollgateError) || error.code !== "TG_APPROVAL_DECIDED") throw error;
    const current = await runtime.approvals.get(approvalId);
    if (current?.status === decision.decision && current.decision?.decidedAt === decision.decidedAt) {
      return current;
    }
    throw error;
  }
}
