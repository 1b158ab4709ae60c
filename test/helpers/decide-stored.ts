import type { TApprovalDecisionRecord } from "../../src/contracts/index.js";
import { approvalEventsOf } from "../../src/engine/internals.js";
import type { ApprovalStore } from "../../src/store/index.js";

/**
 * Writes a decision straight into the store, with the events the approval machine builds for it (the
 * decide script writes the events it is given): for tests that seed decided approvals of any kind and
 * time without going through the decision's checks.
 */
export async function decideStored(
  approvals: ApprovalStore,
  approvalId: string,
  decision: TApprovalDecisionRecord,
): ReturnType<ApprovalStore["decide"]> {
  const record = await approvals.get(approvalId);
  if (!record) return { won: false, status: "missing" };
  return approvals.decide(approvalId, decision, approvalEventsOf(record, decision), { known: record });
}
