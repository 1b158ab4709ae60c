import { TollgateError } from "../errors/index.js";
import { addToolJobs, approvedRawInputOf, toolJobRunOfRecord } from "../runtime/child-jobs.js";
import { promoteJob } from "../runtime/promote-job.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import type { IApproval, IApprovalPlacement, TApprovalDecisionRecord } from "../store/index.js";

/**
 * One script decides and announces (refused when the approval is no longer pending or past its expiry).
 * An approved call's tool job is added right here, as a child of the run, so the tool starts one hop
 * after the decision; then the delayed approval job wakes and hands the decision to the run (it adds the
 * same tool job again, a no-op, which also covers a caller that died between the two steps). Were the
 * approval job already running (its delay ran out a moment ago), it reads the decision that just won.
 */
export async function recordDecision(
  runtime: ITollgateRuntime,
  approvalId: string,
  decision: TApprovalDecisionRecord,
  /** The record the caller read to check the decision: spares the store reading it again. */
  known?: IApprovalPlacement,
): Promise<IApproval> {
  const decided = await runtime.approvals.decide(approvalId, decision, {
    checkExpiry: true,
    ...(known ? { known } : {}),
  });
  if (!decided.won) {
    if (decided.status === "missing") {
      throw new TollgateError("TG_APPROVAL_NOT_FOUND", `No approval has id ${approvalId}.`, { approvalId });
    }
    throw alreadyDecided(approvalId, decided.status);
  }
  const approval = decided.approval;
  const run = toolJobRunOfRecord(approval);
  // Both in one round trip: their order does not matter, since the approval job adds the same tool job
  // (a no-op when it exists) before it hands the decision to the run.
  await Promise.all([
    decision.decision === "approved" && run
      ? addToolJobs(runtime, run, [
          {
            callId: approval.callId,
            toolName: approval.toolName,
            rawInput: approvedRawInputOf(approval),
            approvalId: approval.approvalId,
          },
        ])
      : undefined,
    promoteJob(runtime.queues.approvals, approvalId),
  ]);
  return approval;
}

export function alreadyDecided(approvalId: string, status: string): TollgateError {
  return new TollgateError("TG_APPROVAL_DECIDED", `Approval ${approvalId} is already ${status}.`, {
    approvalId,
    status,
  });
}
