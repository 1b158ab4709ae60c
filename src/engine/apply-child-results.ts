import {
  type IApprovalRecordOnResult,
  rejectionTextOf,
  type TApprovalReport,
  type TPlannedCall,
  type TRunState,
  withFields,
} from "../contracts/index.js";
import {
  cancelledFailure,
  deniedFailure,
  expiredFailure,
  jobFailedFailure,
  rejectedFailure,
} from "../tools/index.js";
import type { TChildOutcome } from "./child-outcome.js";
import { resultPartOf } from "./result-part.js";

/**
 * Applies what the step's child jobs reported. A dispatched call settles with its tool result (a failed
 * job becomes a status-500 result: a run never hangs on a dead child). A parked call settles with the
 * human's decision; an approved one whose tool job has not reported yet becomes dispatched with the
 * approved input, so the worker makes sure that job exists.
 */
export function applyChildResults(
  state: TRunState,
  outcomes: readonly TChildOutcome[],
  approvalTtlMsOf: (toolName: string) => number,
  now: number,
): TRunState {
  const step = state.step;
  if (!step) return state;
  const byCall = groupByCall(outcomes);
  const calls = step.calls.map((call): TPlannedCall => {
    const found = byCall.get(call.callId);
    if (!found || call.state === "settled" || call.state === "pending") return call;
    const parked =
      call.state === "parked" ? settleParked(call, found, step.stepIndex, approvalTtlMsOf) : call;
    if (parked.state !== "dispatched") return parked;
    if (found.failedTool) {
      return settled(parked, jobFailedFailure(), step.stepIndex);
    }
    if (!found.tool) return parked;
    return withFields(parked, {
      state: "settled",
      endsRun: found.tool.endsRun && !found.tool.isError,
      result: resultPartOf(parked, step.stepIndex, found.tool, approvalExtras(parked)),
    });
  });
  return withFields(state, { step: withFields(step, { calls }), updatedAt: now });
}

interface ICallOutcomes {
  tool?: Extract<TChildOutcome, { kind: "tool" }>["execution"];
  approval?: TApprovalReport;
  failedTool?: boolean;
  failedApproval?: boolean;
}

function groupByCall(outcomes: readonly TChildOutcome[]): Map<string, ICallOutcomes> {
  const byCall = new Map<string, ICallOutcomes>();
  for (const outcome of outcomes) {
    const entry = byCall.get(outcome.callId) ?? {};
    if (outcome.kind === "tool") entry.tool = outcome.execution;
    else if (outcome.kind === "approval") entry.approval = outcome.approval;
    else if (outcome.queue === "tools") entry.failedTool = true;
    else entry.failedApproval = true;
    byCall.set(outcome.callId, entry);
  }
  return byCall;
}

/** A parked call with a decision: approved → dispatched with the approved input; otherwise a marker. */
function settleParked(
  call: TPlannedCall,
  found: ICallOutcomes,
  stepIndex: number,
  approvalTtlMsOf: (toolName: string) => number,
): TPlannedCall {
  if (found.failedApproval) return settled(call, jobFailedFailure(), stepIndex);
  const approval = found.approval;
  if (!approval) return call;
  const record = approvalRecord(approval);
  if (approval.decision === "approved") {
    return withFields(call, record ? { state: "dispatched", approval: record } : { state: "dispatched" });
  }
  const withRecord = record ? withFields(call, { approval: record }) : call;
  const failure =
    approval.decision === "refused"
      ? deniedFailure({ verdict: approval.verdictOnEdit ?? call.verdict!, ...texts(approval) })
      : approval.decision === "rejected"
        ? rejectedFailure({
            reason: rejectionTextOf(approval.rejectOption, approval.comment),
            rejectionText: call.rejectionText,
          })
        : approval.decision === "expired"
          ? expiredFailure(approvalTtlMsOf(call.toolName))
          : cancelledFailure();
  return withFields(withRecord, {
    state: "settled",
    result: resultPartOf(withRecord, stepIndex, failure, {
      ...approvalExtras(withRecord),
      ...(approval.decision === "refused" && approval.verdictOnEdit
        ? { verdict: approval.verdictOnEdit }
        : {}),
    }),
  });
}

function settled(
  call: TPlannedCall,
  failure: ReturnType<typeof jobFailedFailure>,
  stepIndex: number,
): TPlannedCall {
  return withFields(call, {
    state: "settled",
    result: resultPartOf(call, stepIndex, failure, approvalExtras(call)),
  });
}

function approvalExtras(call: TPlannedCall): { approval?: IApprovalRecordOnResult } {
  return call.approval ? { approval: call.approval } : {};
}

function approvalRecord(approval: TApprovalReport): IApprovalRecordOnResult | undefined {
  if (approval.decision === "cancelled") return undefined;
  const record: IApprovalRecordOnResult = {
    approvalId: approval.approvalId,
    decision: approval.decision,
    decidedAt: approval.decidedAt,
  };
  if (approval.approver !== undefined) record.approver = approval.approver;
  if (approval.comment !== undefined) record.comment = approval.comment;
  if (approval.editedInput !== undefined) record.editedInput = approval.editedInput;
  if (approval.verdictOnEdit !== undefined) record.verdictOnEdit = approval.verdictOnEdit;
  if (approval.rejectOption !== undefined) record.rejectOption = approval.rejectOption.name;
  return record;
}

function texts(approval: TApprovalReport): { rejectionText?: string; reason?: string } {
  return {
    ...(approval.rejectionText !== undefined ? { rejectionText: approval.rejectionText } : {}),
    ...(approval.reason !== undefined ? { reason: approval.reason } : {}),
  };
}
