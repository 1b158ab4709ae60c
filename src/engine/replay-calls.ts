import type { IToolResultPart, TChatMessage, TModelReply, TPlannedCall } from "../contracts/index.js";

/** One call of the step a replay (fork, resume) starts in, as the original has it. */
export interface IOriginalCall {
  toolCallId: string;
  /** The original's id for the call. */
  callId: string;
  toolName: string;
  /** The arguments the model sent (a human's approved edit is on the call's `approval`). */
  argumentsJson: string;
  /** Its result once it settled. */
  result?: IToolResultPart;
  /** The verdict and the human's decision it had, settled or not. */
  verdict?: TPlannedCall["verdict"];
  approval?: TPlannedCall["approval"];
  approvalId?: string;
  endsRun?: boolean;
}

/** A settled step of the original: its calls, the model's text beside them, and the transcript before it. */
export interface ISettledStep {
  calls: IOriginalCall[];
  assistantText: string | null;
  model?: string;
  /** The run's messages before the step's assistant message. */
  messagesBefore: TChatMessage[];
}

/**
 * Step `step` of `messages` and `results` once it settled: its results in call order, the assistant
 * message with its tool calls (each settled step left one, in step order) and the messages before it.
 * Undefined when the transcript and the results do not line up.
 */
export function settledStepOf(
  messages: readonly TChatMessage[],
  results: readonly IToolResultPart[],
  replies: readonly TModelReply[] | undefined,
  step: number,
): ISettledStep | undefined {
  const ofStep = results.filter((part) => part.step === step);
  let seen = -1;
  const at = messages.findIndex(
    (message) => message.role === "assistant" && (message.toolCalls?.length ?? 0) > 0 && ++seen === step,
  );
  const message = messages[at];
  if (message?.role !== "assistant") return undefined;
  const toolCalls = message.toolCalls ?? [];
  const aligned =
    toolCalls.length === ofStep.length &&
    toolCalls.every((toolCall, index) => toolCall.id === ofStep[index]!.toolCallId);
  if (!aligned) return undefined;
  return {
    calls: ofStep.map((result, index) => ({
      toolCallId: result.toolCallId,
      callId: result.callId,
      toolName: result.toolName,
      argumentsJson: toolCalls[index]!.argumentsJson,
      result,
      ...(result.verdict !== undefined ? { verdict: result.verdict } : {}),
      ...(result.approval !== undefined ? { approval: result.approval } : {}),
      ...(result.endedRun ? { endsRun: true } : {}),
    })),
    assistantText: message.content,
    ...modelOfStep(replies, step),
    messagesBefore: messages.slice(0, at),
  };
}

/** A call of the replay's step that the original settled: settled, with the original's result. */
export function takenOver(call: IOriginalCall, index: number, callId: string): TPlannedCall {
  return settledWith(call, index, callId, withCallId(call.result!, callId));
}

/** A call of the replay's step settled with `result` (already under the replay's call id). */
export function settledWith(
  call: IOriginalCall,
  index: number,
  callId: string,
  result: IToolResultPart,
): TPlannedCall {
  const planned: TPlannedCall = {
    index,
    toolCallId: call.toolCallId,
    callId,
    toolName: call.toolName,
    argumentsJson: call.argumentsJson,
    state: "settled",
    result,
  };
  if (result.verdict !== undefined) planned.verdict = result.verdict;
  if (result.approval !== undefined) planned.approval = result.approval;
  if (call.endsRun) planned.endsRun = true;
  return planned;
}

export function withCallId(part: IToolResultPart, callId: string): IToolResultPart {
  return { ...part, callId };
}

/** The call's place among the results of its step (results are kept in call order per step). */
export function indexInStep(results: readonly IToolResultPart[], at: number): number {
  const step = results[at]!.step;
  return results.slice(0, at).filter((part) => part.step === step).length;
}

export function modelOfStep(replies: readonly TModelReply[] | undefined, step: number): { model?: string } {
  const reply = replies?.findLast((candidate) => candidate.step === step);
  return reply ? { model: reply.model } : {};
}
