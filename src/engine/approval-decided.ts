import { type IApproval, type TApprovalDecisionRecord, tenantOf } from "../contracts/index.js";
import type { IApprovalEvents, TApprovalEffect, TApprovalTransition } from "./approval-effects.js";
import { approvedToolJobSpecOf, toolJobRunOfRecord } from "./tool-job-spec.js";

/**
 * The decision is recorded with its events in one commit; an approved call's tool job is added right
 * after (the tool starts one hop after the decision), and the parked approval job is woken to hand the
 * decision to the run (it adds the same job again only if it is missing: a caller that died in between).
 */
export function decided(
  record: IApproval,
  decision: TApprovalDecisionRecord,
  options: {
    checkExpiry: boolean;
    /** A quorum's decision may have been committed by the voter who settled it: that counts as done. */
    decidedBefore?: boolean;
  },
): TApprovalTransition {
  const effects: TApprovalEffect[] = [
    {
      type: "commit-decision",
      decision,
      checkExpiry: options.checkExpiry,
      acceptSameDecision: options.decidedBefore === true,
    },
  ];
  if (decision.decision === "approved") effects.push(approvedCallJobEffect(record, decision, false));
  effects.push({ type: "promote-approval-job" });
  return {
    ok: true,
    record: { ...record, status: decision.decision, decision },
    effects,
    events: approvalEventsOf(record, decision),
  };
}

/** The events a decision writes in its commit: the run's `approval-decided` and the approval stream's. */
export function approvalEventsOf(record: IApproval, decision: TApprovalDecisionRecord): IApprovalEvents {
  const approver = decision.approver !== undefined ? { approver: decision.approver } : {};
  return {
    run: {
      type: "approval-decided",
      data: {
        approvalId: record.approvalId,
        callId: record.callId,
        toolName: record.toolName,
        decision: decision.decision,
        ...approver,
      },
    },
    approval: {
      type:
        decision.decision === "expired"
          ? "approval-expired"
          : decision.decision === "cancelled"
            ? "approval-cancelled"
            : "approval-decided",
      approvalId: record.approvalId,
      runId: record.runId,
      tenant: tenantOf(record),
      toolName: record.toolName,
      at: decision.decidedAt,
      status: decision.decision,
      ...approver,
      ...(decision.rejectOption !== undefined ? { rejectOption: decision.rejectOption.name } : {}),
    },
  };
}

/** The approved call's tool job, built once from its record (with its approvalId and the edit that runs). */
export function approvedCallJobEffect(
  record: IApproval,
  decision: TApprovalDecisionRecord,
  onlyIfMissing: boolean,
): TApprovalEffect {
  return {
    type: "add-tool-job",
    runId: record.runId,
    run: toolJobRunOfRecord(record),
    spec: approvedToolJobSpecOf(record, { decision: "approved", editedInput: decision.editedInput }),
    onlyIfMissing,
  };
}
