import type { IApproval } from "../contracts/index.js";
import { approvedCallJobEffect } from "./approval-decided.js";
import type { TApprovalEffect, TApprovalTransition } from "./approval-effects.js";
import { refusalOfStatus } from "./approval-refusals.js";

/**
 * The approval job hands the decision to the run: an approved call's tool job is made sure of (added only
 * if it neither exists nor ended), the decision is counted (a cancellation is the run's ending, not a
 * decision) and reported to the run.
 */
export function handOver(record: IApproval): TApprovalTransition {
  const decision = record.decision;
  if (record.status === "pending" || decision === undefined)
    return { ok: false, refusal: refusalOfStatus(record.approvalId, "pending") };
  const effects: TApprovalEffect[] = [];
  if (decision.decision === "approved") effects.push(approvedCallJobEffect(record, decision, true));
  if (decision.decision !== "cancelled") {
    effects.push({
      type: "count-decision",
      tool: record.toolName,
      decision: decision.decision,
      waitSeconds: Math.max(0, decision.decidedAt - record.requestedAt) / 1000,
    });
  }
  effects.push({
    type: "report-to-run",
    callId: record.callId,
    report: { ...decision, approvalId: record.approvalId },
  });
  return { ok: true, record, effects, events: undefined };
}
