import type { TApprovalRequest, TPlannedCall } from "../contracts/index.js";
import { inputThatRan, rawInputOf } from "./raw-input.js";
import type { IToolJobRun, IToolJobSpec } from "./run-effects.js";

/**
 * The tool job of a planned call: with the approval that let it run, so its record gets the call's
 * outcome whoever adds the job (the decision, the approval job, or the run's own ensure-add).
 */
export function toolJobSpecOf(call: TPlannedCall): IToolJobSpec {
  return {
    callId: call.callId,
    toolName: call.toolName,
    rawInput: rawInputOf(call),
    ...(call.approvalId !== undefined && call.approval?.decision === "approved"
      ? { approvalId: call.approvalId }
      : {}),
  };
}

/** The tool job of an approved call, from its approval record: the same spec as toolJobSpecOf's. */
export function approvedToolJobSpecOf(
  record: Pick<TApprovalRequest, "approvalId" | "callId" | "toolName" | "input">,
  decision: { decision: "approved"; editedInput?: unknown },
): IToolJobSpec {
  return {
    callId: record.callId,
    toolName: record.toolName,
    rawInput: inputThatRan(record.input, decision),
    approvalId: record.approvalId,
  };
}

/** What the approved call's tool job needs of its run, from a version 2 record; undefined for version 1. */
export function toolJobRunOfRecord(
  record: Pick<
    TApprovalRequest,
    "runId" | "threadId" | "userContext" | "tools" | "additionalTools" | "toolListHash"
  >,
): IToolJobRun | undefined {
  if (record.additionalTools === undefined) return undefined;
  return {
    runId: record.runId,
    threadId: record.threadId,
    userContext: record.userContext,
    additionalTools: record.additionalTools,
    ...(record.tools ? { tools: record.tools } : {}),
    ...(record.toolListHash !== undefined ? { toolListHash: record.toolListHash } : {}),
  };
}
