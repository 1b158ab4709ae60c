import { approvalIdOf } from "./call-ids.js";
import type { TRunState } from "./run-state.js";
import { EToolCallVerdict } from "./verdict.js";

/**
 * The approvals of a run that may still be pending, from its state alone: those of its current step's
 * calls (a call is saved as parked, with its approval id, before its approval is created, and leaves the
 * step only once settled), and those of calls settled without a decision (a cancelled or timed-out run's
 * parked calls, whose approvals its cancellation decides right after). Every approval the run has pending
 * is among them; the records say which are.
 */
export function awaitedApprovalIdsOf(state: TRunState): string[] {
  const ids = new Set<string>();
  for (const call of state.step?.calls ?? []) if (call.approvalId !== undefined) ids.add(call.approvalId);
  for (const result of state.toolResults) {
    if (result.verdict === EToolCallVerdict.NEEDS_APPROVAL && result.approval === undefined) {
      ids.add(approvalIdOf(result.callId));
    }
  }
  return [...ids];
}
