import type {
  EToolCallVerdict,
  IApprovalRecordOnResult,
  IToolResultPart,
  TApprovalInputs,
  TPlannedCall,
} from "../contracts/index.js";
import type { IToolCallFailure, IToolExecution } from "../tools/index.js";
import { argumentsValueOf, inputThatRan, rawInputOf } from "./raw-input.js";

/** The stored result of a call from what happened to it: an execution or a failure decided before it. */
export function resultPartOf(
  call: TPlannedCall,
  stepIndex: number,
  happened: IToolExecution | IToolCallFailure,
  extra: { verdict?: EToolCallVerdict; approval?: IApprovalRecordOnResult } = {},
): IToolResultPart {
  const execution = "durationMs" in happened ? happened : undefined;
  const part: IToolResultPart = {
    toolCallId: call.toolCallId,
    callId: call.callId,
    toolName: call.toolName,
    step: stepIndex,
    // As sent (the human's edit, else the model's arguments), never the parsed value: it stays JSON.
    input: rawInputOf({ argumentsJson: call.argumentsJson, approval: extra.approval ?? call.approval }),
    text: happened.text,
    isError: happened.isError,
    outcome: happened.outcome,
    durationMs: execution?.durationMs ?? 0,
  };
  if (execution && !execution.isError) {
    if (execution.outputStoredApart) part.outputStoredApart = true;
    else part.output = execution.output;
  }
  if (happened.status !== undefined) part.status = happened.status;
  if (happened.errorCode !== undefined) part.errorCode = happened.errorCode;
  if (execution?.truncatedChars) part.truncatedChars = execution.truncatedChars;
  const verdict = extra.verdict ?? call.verdict;
  if (verdict !== undefined) part.verdict = verdict;
  if (extra.approval) part.approval = extra.approval;
  const approval = extra.approval ?? call.approval;
  if (approval) part.inputs = inputsOf(call, approval, execution);
  if (call.forkEdit) part.forkEdit = call.forkEdit;
  return part;
}

/**
 * A call that went through an approval: proposed (the model's arguments), approved (the edit, else the
 * proposal; only when approved) and executed (what `execute` received, reported by its tool job), as the
 * approval's record shows them.
 */
function inputsOf(
  call: TPlannedCall,
  approval: IApprovalRecordOnResult,
  execution: IToolExecution | undefined,
): TApprovalInputs {
  const proposed = argumentsValueOf(call.argumentsJson);
  return {
    proposed,
    ...(approval.decision === "approved" ? { approved: inputThatRan(proposed, approval) } : {}),
    ...(execution?.executedInput !== undefined ? { executed: execution.executedInput } : {}),
  };
}
