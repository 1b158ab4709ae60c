import {
  type IChatToolCall,
  type IToolResultPart,
  type TChatMessage,
  type TPlannedCall,
  type TRunState,
  withFields,
} from "../contracts/index.js";
import { approvedEditOf } from "./raw-input.js";
import { budgetSpent } from "./run-budget.js";

/**
 * Every call of the step has settled: the assistant message and one tool message per call join the transcript
 * (with the input that actually ran, so an edit a human made is what the model sees), the executed tools are
 * recorded for visibleWhen/requires, and the next phase is chosen: a call that ended the run (design decision
 * D86: a tool's call may end the run), a spent budget (tokens or tool calls) or the step limit leads to one
 * last model call without tools.
 */
export function settleStep(state: TRunState, now: number): TRunState {
  const step = state.step;
  if (!step || step.calls.some((call) => call.state !== "settled")) return state;
  const results: IToolResultPart[] = step.calls.map((call) => call.result!);
  const toolCalls: IChatToolCall[] = step.calls.map((call) => ({
    id: call.toolCallId,
    name: call.toolName,
    // The model reads the call that ran: a human's approved edit replaces its arguments.
    argumentsJson: argumentsThatRan(call),
  }));
  const messages: TChatMessage[] = [
    ...state.messages,
    { role: "assistant", content: step.assistantText, toolCalls },
    ...results.map(
      (result): TChatMessage => ({ role: "tool", toolCallId: result.toolCallId, content: result.text }),
    ),
  ];
  const endingCall = step.calls.find((call) => call.endsRun === true && call.result?.isError === false);
  const stepIndex = state.stepIndex + 1;
  const next = withFields(state, {
    messages,
    toolResults: [
      ...state.toolResults,
      ...results.map((result) =>
        endingCall && result.callId === endingCall.callId ? withFields(result, { endedRun: true }) : result,
      ),
    ],
    executed: [
      ...state.executed,
      ...results.filter((result) => result.outcome === "ok").map((r) => r.toolName),
    ],
    stepIndex,
    step: undefined,
    phase: "model",
    updatedAt: now,
  });
  if (endingCall)
    return withFields(next, {
      phase: "final-model",
      endedByTool: endingCall.toolName,
      stopReason: "ended_by_tool",
    });
  if (budgetSpent(next)) return withFields(next, { phase: "final-model", stopReason: "budget_exhausted" });
  if (stepIndex >= state.request.maxSteps)
    return withFields(next, { phase: "final-model", stopReason: "max_steps" });
  return next;
}

/** The call's arguments as the model reads them back: the model's own text unless an approved edit ran. */
function argumentsThatRan(call: TPlannedCall): string {
  const edit = approvedEditOf(call.approval);
  return edit ? JSON.stringify(edit.editedInput) : call.argumentsJson;
}
