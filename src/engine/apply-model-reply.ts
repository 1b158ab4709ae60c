import {
  callIdOf,
  type IChatToolCall,
  type IModelFallback,
  type ITokenUsage,
  type TPlannedCall,
  type TRunState,
  withFields,
} from "../contracts/index.js";
import { budgetExhaustedFailure, hiddenToolFailure, unknownToolFailure } from "../tools/index.js";
import { finishRun } from "./finish-run.js";
import { type IRunTools, visibleToolsOf } from "./model-request.js";
import { outputCorrectionMessage, type TOutputDecision } from "./output-decision.js";
import { resultPartOf } from "./result-part.js";
import { toolCallsLeft } from "./run-budget.js";

export interface IModelReplyEvent {
  text: string | null;
  toolCalls: IChatToolCall[];
  usage: ITokenUsage;
  /** The named model that answered; recorded with the step and the run's per-model usage. */
  model?: string;
  /** "stop", "tool_calls", "length", ... as the endpoint said: "length" cuts a structured answer. */
  finishReason?: string | null;
  /** How long the model call took, as the shell measured it (the core reads no clock). */
  durationMs?: number;
}

/** Whether this reply is the run's answer: no tool calls, or the last step (whose tool calls are ignored). */
export function isFinalReply(state: TRunState, reply: IModelReplyEvent): boolean {
  return state.phase === "final-model" || reply.toolCalls.length === 0;
}

/**
 * The model answered. No tool calls, or the last step without tools: the run is finished. Otherwise the calls
 * become the step's plan, each checked in order: an unknown name, a tool hidden at this step (design decision
 * D72: a tool not offered at a step cannot be called), or arguments that are not JSON or fail the schema are
 * settled at once as errors the model reads; the others wait for their verdict. Calls past the run's
 * tool-call budget are refused at once, unrun. A run that asked for a structured answer ends as
 * `outputDecision` says (output-decision.ts). `fallbacks`: the switches the call made before this reply,
 * recorded with it.
 */
export async function applyModelReply(
  state: TRunState,
  reply: IModelReplyEvent,
  tools: IRunTools,
  now: number,
  outputDecision?: TOutputDecision,
  fallbacks: readonly IModelFallback[] = [],
): Promise<TRunState> {
  const counted = withFields(state, {
    modelCalls: state.modelCalls + 1,
    usage: addUsage(state.usage, reply.usage),
    ...(reply.model !== undefined
      ? {
          modelReplies: [
            ...(state.modelReplies ?? []),
            {
              step: state.stepIndex,
              model: reply.model,
              usage: reply.usage,
              ...(reply.durationMs !== undefined ? { durationMs: reply.durationMs } : {}),
              // Which models failed it first, for the run's readers (each also a model-fallback event).
              ...(fallbacks.length > 0
                ? { fallbacks: fallbacks.map(({ from, to, reason }) => ({ from, to, reason })) }
                : {}),
            },
          ],
        }
      : {}),
    updatedAt: now,
  });
  if (isFinalReply(state, reply)) {
    const text = reply.text ?? "";
    const answered = withFields(counted, {
      messages: [...counted.messages, { role: "assistant", content: text }],
      finalText: text,
      stopReason: counted.stopReason ?? "answered",
    });
    return outputDecision ? withOutput(answered, outputDecision, now) : finishRun(answered, "completed", now);
  }
  const visibleNames = new Set(visibleToolsOf(state, tools).map((tool) => tool.name));
  const callsLeft = toolCallsLeft(state);
  const calls: TPlannedCall[] = [];
  for (const [index, toolCall] of reply.toolCalls.entries()) {
    calls.push(await planCall(state, toolCall, index, visibleNames, tools, index >= callsLeft));
  }
  return withFields(counted, {
    status: "running",
    phase: "tools",
    step: {
      stepIndex: state.stepIndex,
      ...(reply.model !== undefined ? { model: reply.model } : {}),
      assistantText: reply.text,
      calls,
    },
  });
}

/** The answer of a run that asked for a structured one, as the decision says. */
function withOutput(answered: TRunState, decision: TOutputDecision, now: number): TRunState {
  switch (decision.type) {
    case "valid":
      return finishRun(withFields(answered, { output: decision.value }), "completed", now);
    case "retry": {
      // Asked again at the same step: the answer and the issues stay in the transcript the model reads.
      const { finalText: _notFinal, stopReason, ...rest } = answered;
      const retried: TRunState = {
        ...rest,
        status: "running",
        messages: [...answered.messages, outputCorrectionMessage(decision.issues)],
        outputRetries: (answered.outputRetries ?? 0) + 1,
      };
      // "answered" was this reply's; a reason set before it (max_steps, budget_exhausted) stays.
      if (stopReason !== undefined && stopReason !== "answered") retried.stopReason = stopReason;
      return retried;
    }
    case "invalid":
      return finishRun(withFields(answered, { stopReason: "failed" }), "failed", now, {
        code: "TG_OUTPUT_INVALID",
        message: `The answer does not match the output schema after ${answered.outputRetries ?? 0} retry: ${decision.issues.map((issue) => `${issue.path || "the answer"} ${issue.message}`).join("; ")}`,
        details: { issues: decision.issues },
      });
    case "truncated":
      return finishRun(withFields(answered, { stopReason: "failed" }), "failed", now, {
        code: "TG_OUTPUT_TRUNCATED",
        message:
          "The model endpoint cut the answer at its token limit (finish_reason: length) before the JSON ended.",
        details: { finishReason: "length" },
      });
  }
}

/**
 * One call of a model reply, planned at `state`'s step: settled at once when it cannot run (over the
 * budget, an unknown or hidden tool, arguments the schema refuses), else pending its verdict. A fork plans
 * the calls it runs again the same way (fork-run.ts).
 */
export async function planCall(
  state: TRunState,
  toolCall: IChatToolCall,
  index: number,
  visibleNames: ReadonlySet<string>,
  tools: IRunTools,
  overBudget: boolean,
): Promise<TPlannedCall> {
  const call: TPlannedCall = {
    index,
    toolCallId: toolCall.id,
    callId: callIdOf(state.runId, state.stepIndex, index),
    toolName: toolCall.name,
    argumentsJson: toolCall.argumentsJson,
    state: "pending",
  };
  const settle = (failure: Parameters<typeof resultPartOf>[2]): TPlannedCall =>
    withFields<TPlannedCall>(call, {
      state: "settled",
      result: resultPartOf(call, state.stepIndex, failure),
    });
  if (overBudget) return settle(budgetExhaustedFailure());
  if (!tools.registry.has(toolCall.name)) return settle(unknownToolFailure(toolCall.name));
  if (!visibleNames.has(toolCall.name)) return settle(hiddenToolFailure(toolCall.name));
  // Checked now so that a call the schema refuses settles at once (D72); the parsed value is not kept.
  const parsed = await tools.registry.parseArguments(toolCall.name, toolCall.argumentsJson);
  if (!parsed.ok) return settle(parsed.failure);
  return call;
}

function addUsage(total: ITokenUsage, more: ITokenUsage): ITokenUsage {
  return {
    promptTokens: total.promptTokens + more.promptTokens,
    completionTokens: total.completionTokens + more.completionTokens,
    totalTokens: total.totalTokens + more.totalTokens,
  };
}
