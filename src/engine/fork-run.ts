import {
  callIdOf,
  type IChatToolCall,
  type IToolResultPart,
  type TChatMessage,
  type TModelReply,
  type TPlannedCall,
  type TRunRequest,
  type TRunState,
} from "../contracts/index.js";
import { planCall } from "./apply-model-reply.js";
import { createRunState } from "./create-run.js";
import { type IRunTools, visibleToolsOf } from "./model-request.js";
import { argumentsValueOf } from "./raw-input.js";
import { type IRepeatedEffect, repeatedEffectsOf } from "./repeated-effects.js";
import { type IOriginalCall, indexInStep, settledStepOf, settledWith } from "./replay-calls.js";
import { toolCallsLeft } from "./run-budget.js";

/** The new run a fork is, as `createRunState` takes it, and where in the original it starts. */
export interface IForkStart {
  runId: string;
  threadId: string;
  /** The fork's request: the original's, with `forkOf`. */
  request: TRunRequest;
  requestHash: string;
  now: number;
  /** The original's call the fork runs again. */
  fromCallId: string;
  /** The call's input in the fork (a JSON value, the whole input); absent: the input it had. */
  edit?: { input: unknown };
}

export interface IForkRefusal {
  code: "TG_CALL_NOT_FOUND" | "TG_CALL_NOT_FORKABLE" | "TG_FORK_INVALID_INPUT";
  message: string;
  details: Record<string, unknown>;
}

export type TForkStart =
  | {
      ok: true;
      state: TRunState;
      /** The original's calls the fork runs again that may have changed the world (repeatedEffectsOf). */
      repeats: IRepeatedEffect[];
    }
  | { ok: false; refusal: IForkRefusal };

/** Where the call is: its step, that step's calls, and the transcript before the step. */
interface ILocatedCall {
  stepIndex: number;
  index: number;
  calls: IOriginalCall[];
  assistantText: string | null;
  model?: string;
  /** The run's messages before the step's assistant message. */
  messages: TChatMessage[];
}

/**
 * A fork's first state (issue 25): the original run as it was just before `fromCallId` ran. The model's
 * earlier replies and the results of the calls before it (earlier steps, and the calls of its own step
 * that come first) are taken from the stored run, never asked or run again; the call and the ones after it
 * in its step are planned again (with `edit` for the call) exactly as a reply's calls are, so the policy,
 * approvals, visibility and budgets apply to them as to any call. The fork reads the history the original
 * read, on a thread of its own: its transcript would repeat a turn on the original's thread. Every call
 * of the fork gets an id of the fork; results taken over keep their input, output, verdict and approval.
 *
 * Refused: a call the run does not have (TG_CALL_NOT_FOUND); a call with an earlier call of its step not
 * settled yet in the original (TG_CALL_NOT_FORKABLE, try once it has); an edited input the tool's schema
 * refuses, or an edit of a call that cannot run at that step (TG_FORK_INVALID_INPUT, TG_CALL_NOT_FORKABLE).
 */
export async function forkRunState(
  original: TRunState,
  fork: IForkStart,
  tools: IRunTools,
): Promise<TForkStart> {
  const located = locateCall(original, fork.fromCallId);
  if (!located) {
    return refuse("TG_CALL_NOT_FOUND", `Run ${original.runId} has no tool call ${fork.fromCallId}.`, {
      runId: original.runId,
      callId: fork.fromCallId,
    });
  }
  const { stepIndex, index, calls } = located;
  const unsettled = calls.slice(0, index).find((call) => call.result === undefined);
  if (unsettled) {
    return refuse(
      "TG_CALL_NOT_FORKABLE",
      `An earlier call of its step (${unsettled.toolName}) has not finished in run ${original.runId}; fork once it has.`,
      { runId: original.runId, callId: fork.fromCallId, reason: "earlier-call-unsettled" },
    );
  }
  const base = baseState(original, fork, located);
  const visibleNames = new Set(visibleToolsOf(base, tools).map((tool) => tool.name));
  const callsLeft = toolCallsLeft(base);
  const planned: TPlannedCall[] = [];
  for (const [at, call] of calls.entries()) {
    const callId = callIdOf(fork.runId, stepIndex, at);
    if (at < index) {
      planned.push(settledWith(call, at, callId, takenOverResult(call.result!, callId, original.runId)));
      continue;
    }
    const edited = at === index && fork.edit !== undefined;
    const argumentsJson = edited ? JSON.stringify(fork.edit!.input) : call.argumentsJson;
    const toolCall: IChatToolCall = { id: call.toolCallId, name: call.toolName, argumentsJson };
    const plannedCall = await planCall(base, toolCall, at, visibleNames, tools, at >= callsLeft);
    // The input is the fork's creator's, not the model's: its readers are told so (forkEdit).
    planned.push(edited ? withForkEdit(plannedCall, call.argumentsJson) : plannedCall);
  }
  const target = planned[index]!;
  if (fork.edit !== undefined && target.state === "settled") {
    const result = target.result!;
    const invalid = result.outcome === "invalid_input";
    return refuse(
      invalid ? "TG_FORK_INVALID_INPUT" : "TG_CALL_NOT_FORKABLE",
      invalid
        ? `The input does not fit the tool ${target.toolName}: ${result.text}`
        : `The call cannot run at its step (${result.outcome}): ${result.text}`,
      {
        runId: original.runId,
        callId: fork.fromCallId,
        toolName: target.toolName,
        ...(invalid ? {} : { reason: result.outcome }),
      },
    );
  }
  return {
    ok: true,
    repeats: repeatedEffectsOf(
      original,
      { step: stepIndex, index },
      (name) => tools.registry.get(name)?.readOnly === true,
    ),
    state: {
      ...base,
      phase: "tools",
      step: {
        stepIndex,
        ...(located.model !== undefined ? { model: located.model } : {}),
        assistantText: located.assistantText,
        calls: planned,
      },
    },
  };
}

/** The fork queued on a thread of its own, with the original's transcript, tool results and usage so far. */
function baseState(original: TRunState, fork: IForkStart, located: ILocatedCall): TRunState {
  const { stepIndex } = located;
  const created = createRunState({ ...fork, ownsThread: true });
  const earlier = original.toolResults.filter((part) => part.step < stepIndex);
  const toolResults = earlier.map((part, at) =>
    takenOverResult(part, callIdOf(fork.runId, part.step, indexInStep(earlier, at)), original.runId),
  );
  const state: TRunState = {
    ...created,
    // The MCP tools the original pinned: the fork's calls and steps see the schemas its model saw.
    ...(original.toolListHash !== undefined ? { toolListHash: original.toolListHash } : {}),
    history: original.history,
    messages: located.messages,
    stepIndex,
    executed: toolResults.filter((part) => part.outcome === "ok").map((part) => part.toolName),
    toolResults,
  };
  const replies = original.modelReplies
    ?.filter((reply) => reply.step <= stepIndex)
    .map((reply) => ({ ...reply, takenFrom: { runId: original.runId } }));
  if (replies === undefined) {
    // A state saved before named models: one model call per step so far; its tokens are not known per step.
    return { ...state, modelCalls: stepIndex + 1 };
  }
  // Each step up to this one had one reply with tool calls; any other was a structured answer retried.
  const retries = replies.length - (stepIndex + 1);
  return {
    ...state,
    modelCalls: replies.length,
    modelReplies: replies,
    usage: usageOf(replies),
    ...(retries > 0 ? { outputRetries: retries } : {}),
  };
}

/** An original's result as the fork keeps it: under the fork's call id, naming where it came from. */
function takenOverResult(part: IToolResultPart, callId: string, originalRunId: string): IToolResultPart {
  return { ...part, callId, takenFrom: { runId: originalRunId, callId: part.callId } };
}

/**
 * The forked call with the input its fork request gave: marked as such, with the input it had in the
 * original (its result carries the mark: result-part.ts). An edit the call settles on at once is refused
 * before this (forkRunState), so the call is not settled yet.
 */
function withForkEdit(call: TPlannedCall, originalArgumentsJson: string): TPlannedCall {
  return { ...call, forkEdit: { originalInput: argumentsValueOf(originalArgumentsJson) } };
}

/** The call in the original's current step, or among its settled steps' results. */
function locateCall(original: TRunState, callId: string): ILocatedCall | undefined {
  const current = original.step;
  const inCurrent = current?.calls.findIndex((call) => call.callId === callId) ?? -1;
  if (current && inCurrent >= 0) {
    return {
      stepIndex: current.stepIndex,
      index: inCurrent,
      calls: current.calls.map((call) => ({
        toolCallId: call.toolCallId,
        callId: call.callId,
        toolName: call.toolName,
        argumentsJson: call.argumentsJson,
        ...(call.state === "settled" && call.result ? { result: call.result } : {}),
        ...(call.endsRun ? { endsRun: true } : {}),
      })),
      assistantText: current.assistantText,
      ...(current.model !== undefined ? { model: current.model } : {}),
      messages: original.messages,
    };
  }
  const found = original.toolResults.find((part) => part.callId === callId);
  if (!found) return undefined;
  const settled = settledStepOf(original.messages, original.toolResults, original.modelReplies, found.step);
  if (!settled) return undefined;
  return {
    stepIndex: found.step,
    index: settled.calls.findIndex((call) => call.callId === callId),
    calls: settled.calls,
    assistantText: settled.assistantText,
    ...(settled.model !== undefined ? { model: settled.model } : {}),
    messages: settled.messagesBefore,
  };
}

function usageOf(replies: readonly TModelReply[]): TRunState["usage"] {
  return replies.reduce(
    (total, reply) => ({
      promptTokens: total.promptTokens + reply.usage.promptTokens,
      completionTokens: total.completionTokens + reply.usage.completionTokens,
      totalTokens: total.totalTokens + reply.usage.totalTokens,
    }),
    { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  );
}

function refuse(code: IForkRefusal["code"], message: string, details: Record<string, unknown>): TForkStart {
  return { ok: false, refusal: { code, message, details } };
}
