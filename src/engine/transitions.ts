import {
  type IGatewayResponse,
  type IModelFallback,
  isTerminal,
  responseOf,
  type TCancelReason,
  type TChatMessage,
  type TPlannedCall,
  type TRunEventInput,
  type TRunState,
  type TTerminalRunStatus,
  withFields,
} from "../contracts/index.js";
import type { IOutputChecker } from "../output/index.js";
import { applyChildResults } from "./apply-child-results.js";
import { applyModelReply, type IModelReplyEvent, isFinalReply } from "./apply-model-reply.js";
import { type IParkSettings, parkSpecOf } from "./approval-park.js";
import type { TChildOutcome } from "./child-outcome.js";
import { startRun } from "./create-run.js";
import { applyVerdicts, type TCallVerdict } from "./decide-calls.js";
import { finishRun, stopRun } from "./finish-run.js";
import type { IModelRequestPlan, IRunTools } from "./model-request.js";
import { decideOutput } from "./output-decision.js";
import type { IThreadRelease, ITransition, TRunEffect } from "./run-effects.js";
import { settleStep } from "./settle-step.js";
import { toolJobSpecOf } from "./tool-job-spec.js";

/**
 * The engine's transitions: each takes the state and what happened, and returns the next state, the
 * effects the worker must carry out, and the events saved with the state. Nothing outside the engine
 * decides an effect (checked by `npm run check:imports`).
 */

/** The run is at the head of its thread and starts, with the thread's history as it is now. */
export function startTransition(state: TRunState, history: TChatMessage[], now: number): ITransition {
  return { state: startRun(state, history, now), effects: [], events: [{ type: "run-started", data: {} }] };
}

/**
 * The model answered: a final answer finishes the run (a structured one once `outputChecker` accepts it, or
 * it is asked again); tool calls become the step's plan.
 */
export async function modelReplyTransition(
  state: TRunState,
  reply: IModelReplyEvent,
  plan: IModelRequestPlan,
  tools: IRunTools,
  now: number,
  extra: { fallbacks?: readonly IModelFallback[]; outputChecker?: IOutputChecker | undefined } = {},
): Promise<ITransition> {
  const outputDecision =
    extra.outputChecker && state.request.output && isFinalReply(state, reply)
      ? decideOutput(reply, extra.outputChecker, state.outputRetries ?? 0)
      : undefined;
  const next = await applyModelReply(state, reply, tools, now, outputDecision, extra.fallbacks);
  const events: TRunEventInput[] = [
    ...fallbackEvents(state, extra.fallbacks ?? []),
    {
      type: "model-replied",
      data: {
        step: state.stepIndex,
        final: plan.final,
        toolsOffered: plan.tools.map((tool) => tool.name),
        toolCalls: reply.toolCalls.map((call) => ({ id: call.id, name: call.name })),
        usage: reply.usage,
        ...(reply.model !== undefined ? { model: reply.model } : {}),
        ...(reply.durationMs !== undefined ? { durationMs: reply.durationMs } : {}),
        ...(outputDecision ? { output: outputDecision.type } : {}),
      },
    },
  ];
  const settledAtOnce = (next.step?.calls ?? []).filter((call) => call.state === "settled");
  return ending(state, next, events, settledEffect(settledAtOnce));
}

/** The model endpoint kept failing after the client's retries: the run fails with the error it gave. */
export function modelFailedTransition(
  state: TRunState,
  error: { code: string; message: string; details?: Record<string, unknown> },
  now: number,
  fallbacks: readonly IModelFallback[] = [],
): ITransition {
  // The models tried on the way go with the error, so a reader of the run sees which failed it.
  const tried =
    fallbacks.length > 0
      ? {
          ...error,
          details: {
            ...error.details,
            fallbacks: fallbacks.map(({ from, to, reason }) => ({ from, to, reason })),
          },
        }
      : error;
  const failed = finishRun(withFields(state, { stopReason: "failed" }), "failed", now, tried);
  return ending(state, failed, fallbackEvents(state, fallbacks), []);
}

/**
 * Every model the step could use is paused by a 429 (issue 22: an outcome, not an exception): the state
 * stays as it is, the switches tried on the way are recorded, and the run waits out the pause.
 */
export function modelPausedTransition(state: TRunState, fallbacks: readonly IModelFallback[]): ITransition {
  return { state, effects: [], events: fallbackEvents(state, fallbacks) };
}

/** One `model-fallback` event per switch of the step's model call. */
function fallbackEvents(state: TRunState, fallbacks: readonly IModelFallback[]): TRunEventInput[] {
  return fallbacks.map((fallback) => ({
    type: "model-fallback",
    data: { step: state.stepIndex, from: fallback.from, to: fallback.to, reason: fallback.reason },
  }));
}

/**
 * Verdicts decided: allowed calls become tool jobs, calls needing a human are parked, denied ones settle.
 * The jobs and approvals are created after this state is saved, and announced once they exist.
 */
export function verdictsTransition(
  state: TRunState,
  verdicts: ReadonlyMap<string, TCallVerdict>,
  park: IParkSettings,
  now: number,
): ITransition {
  const applied = applyVerdicts(state, verdicts, now);
  const settled = (applied.state.step?.calls ?? []).filter(
    (call) => call.state === "settled" && verdicts.has(call.callId),
  );
  return {
    state: applied.state,
    effects: [
      ...toolJobsEffect(applied.dispatched, true),
      ...parkEffect(applied.state, applied.parked, park, now),
      ...settledEffect(settled),
    ],
    events: [],
  };
}

/**
 * The step's children reported. `changed` is false when nothing new was reported: the worker then makes
 * sure every child the state expects exists (a crash between a checkpoint and the jobs it announced).
 */
export function childrenTransition(
  state: TRunState,
  outcomes: readonly TChildOutcome[],
  approvalTtlMsOf: (toolName: string) => number,
  now: number,
): ITransition & { changed: boolean } {
  const before = new Map((state.step?.calls ?? []).map((call) => [call.callId, call.state]));
  const next = applyChildResults(state, outcomes, approvalTtlMsOf, now);
  const calls = next.step?.calls ?? [];
  const moved = calls.filter((call) => before.get(call.callId) !== call.state);
  if (moved.length === 0) return { state, effects: [], events: [], changed: false };
  const approvedNow = moved.filter((call) => call.state === "dispatched");
  const settledNow = moved.filter((call) => call.state === "settled");
  return {
    state: withFields(next, { status: "running" }),
    // The approval job already added the approved call's tool job; adding it again is a no-op that makes
    // sure it exists.
    effects: [...toolJobsEffect(approvedNow, false), ...settledEffect(settledNow)],
    events: [],
    changed: true,
  };
}

/** Nothing new was reported: every child the state expects is added again (a no-op where it exists). */
export function ensureChildrenTransition(state: TRunState, park: IParkSettings, now: number): ITransition {
  const calls = state.step?.calls ?? [];
  return {
    state,
    effects: [
      ...toolJobsEffect(
        calls.filter((call) => call.state === "dispatched"),
        false,
      ),
      ...parkEffect(
        state,
        calls.filter((call) => call.state === "parked"),
        park,
        now,
      ),
    ],
    events: [],
  };
}

/** Every call of the step settled: the transcript grows and the next phase is chosen. */
export function settleTransition(state: TRunState, now: number): ITransition {
  const settled = settleStep(state, now);
  return {
    state: settled,
    effects: [],
    events: [
      {
        type: "step-settled",
        data: {
          step: state.stepIndex,
          phase: settled.phase,
          ...(settled.endedByTool !== undefined ? { endedByTool: settled.endedByTool } : {}),
        },
      },
    ],
  };
}

/** Cancelled or past its deadline: calls in flight settle as cancelled and the run ends. */
export function stopTransition(state: TRunState, reason: TCancelReason, now: number): ITransition {
  // A run that finished while the cancellation travelled keeps its real ending.
  if (isTerminal(state)) return finishedTransition(state);
  return ending(state, stopRun(state, reason, now), [], []);
}

/** The run's job failed for good (an infrastructure fault): the run ends as failed, with this error. */
export function failTransition(
  state: TRunState,
  error: { code: string; message: string },
  now: number,
): ITransition {
  if (isTerminal(state)) return finishedTransition(state);
  return ending(state, finishRun(withFields(state, { stopReason: "failed" }), "failed", now, error), [], []);
}

/** A run found finished (its worker died after the final save): only its release from the thread is left. */
export function finishedTransition(state: TRunState): ITransition {
  return { state, effects: [{ type: "finish", release: threadReleaseOf(state) }], events: [] };
}

/**
 * How a run leaves its thread, whatever ended it: its messages join the history only if it started (a run
 * that never started has nothing the next run should read), but for those the history holds already (a
 * resume's first messages, which the run it continues left there), and the next run is woken.
 */
export function threadReleaseOf(state: TRunState): IThreadRelease {
  return {
    threadId: state.threadId,
    runId: state.runId,
    messages:
      state.startedAt === undefined
        ? []
        : state.messagesOnThread === undefined
          ? state.messages
          : state.messages.slice(state.messagesOnThread),
  };
}

/** Adds `run-finished` and the finish effect when this transition ends the run. */
function ending(
  before: TRunState,
  after: TRunState,
  events: TRunEventInput[],
  effects: TRunEffect[],
): ITransition {
  if (isTerminal(before) || !isTerminal(after)) return { state: after, effects, events };
  return {
    state: after,
    effects: [...effects, { type: "finish", release: threadReleaseOf(after) }],
    events: [
      ...events,
      {
        type: "run-finished",
        data: { status: after.status as TTerminalRunStatus, response: withoutOutputs(responseOf(after)) },
      },
    ],
  };
}

/**
 * The response an event carries: the tool outputs are left out (each may be up to maxStoredOutputBytes,
 * and events are copied to every SSE reader); what the model read (`text`) stays. GET the run for them.
 */
function withoutOutputs(response: IGatewayResponse): IGatewayResponse {
  return {
    ...response,
    toolResults: response.toolResults.map(({ output: _output, ...part }) => part),
  };
}

function toolJobsEffect(calls: readonly TPlannedCall[], announce: boolean): TRunEffect[] {
  if (calls.length === 0) return [];
  return [
    {
      type: "add-tool-jobs",
      calls: calls.map(toolJobSpecOf),
      announce: announce
        ? calls.map((call) => ({
            type: "tool-call-dispatched" as const,
            data: { callId: call.callId, toolName: call.toolName },
          }))
        : [],
    },
  ];
}

function parkEffect(
  state: TRunState,
  calls: readonly TPlannedCall[],
  settings: IParkSettings,
  now: number,
): TRunEffect[] {
  if (calls.length === 0) return [];
  return [{ type: "park-calls", calls: calls.map((call) => parkSpecOf(state, call, now, settings)) }];
}

function settledEffect(calls: readonly TPlannedCall[]): TRunEffect[] {
  const results = calls.flatMap((call) => (call.result ? [call.result] : []));
  return results.length === 0 ? [] : [{ type: "calls-settled", results }];
}
