import type {
  EToolCallVerdict,
  IGatewayResponse,
  ITokenUsage,
  IUserContext,
  TChatMessage,
} from "../../../src/contracts/index.js";
import {
  applyChildResults,
  applyModelReply,
  applyVerdicts,
  approvalIdOf,
  createRunState,
  evaluateVerdicts,
  type IApprovalOutcome,
  type IModelReplyEvent,
  type IModelRequestPlan,
  type IRunTools,
  nextAction,
  planModelRequest,
  responseOf,
  runRequestSchema,
  settleStep,
  startRun,
  stopRun,
  type TChildOutcome,
  type TPlannedCall,
  type TRunAction,
  type TRunRequest,
  type TRunState,
  toolGone,
} from "../../../src/engine/index.js";
import { type IToolCallFailure, type IToolExecution, outputToText } from "../../../src/tools/index.js";

/**
 * A pure driver of the run engine: it plays a whole run the way the run worker does (nextAction, then the
 * engine function for that action), against a scripted sequence of model replies and a script of what
 * each call's child jobs report. No Redis, no timers: ids are fixed and time is a counter.
 */

export const runId = "run-1";
export const threadId = "thread-1";
/** The first `now`; every engine call after it is one second later. */
export const startTime = 1_700_000_000_000;
export const userContext: IUserContext = { userId: "user-1" };
export const defaultUsage: ITokenUsage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };

// ---------------------------------------------------------------------------------------------------
// Model replies

export interface IScriptedCall {
  name: string;
  /** The model's JSON text of the arguments. */
  argumentsJson: string;
  /** The model's id for the call; `call_<model call>_<index>` when omitted. */
  id?: string;
}

export interface IScriptedReply {
  text: string | null;
  calls: IScriptedCall[];
  usage: ITokenUsage;
}

/** A call with its input as JSON. */
export function call(name: string, input: unknown = {}, id?: string): IScriptedCall {
  return { name, argumentsJson: JSON.stringify(input), ...(id === undefined ? {} : { id }) };
}

/** A call with arguments exactly as the model wrote them (not JSON, oddly spaced, ...). */
export function rawCall(name: string, argumentsJson: string): IScriptedCall {
  return { name, argumentsJson };
}

/** A reply asking for tools, with no text beside them unless given. */
export function callTools(
  calls: Array<IScriptedCall>,
  extra: { text?: string | null; usage?: ITokenUsage } = {},
): IScriptedReply {
  return { text: extra.text ?? null, calls, usage: extra.usage ?? defaultUsage };
}

/** A text answer. */
export function answer(text: string | null, usage: ITokenUsage = defaultUsage): IScriptedReply {
  return { text, calls: [], usage };
}

// ---------------------------------------------------------------------------------------------------
// Child outcomes

/** Makes one child job's report for a call, when the driver delivers it. */
export type TOutcomeMaker = (call: TPlannedCall, at: number) => TChildOutcome;

/** What a call's child jobs report, one entry per wait of the run (an entry may hold several reports). */
export type TCallScript = Array<TOutcomeMaker | TOutcomeMaker[]>;

/** The tool job returned the output (what ToolRegistry.execute reports for a successful call). */
export function toolOk(
  output: unknown,
  extra: { endsRun?: boolean; durationMs?: number; text?: string; truncatedChars?: number } = {},
): TOutcomeMaker {
  return (call) => {
    const execution: IToolExecution = {
      isError: false,
      text: extra.text ?? outputToText(output),
      output,
      outcome: "ok",
      durationMs: extra.durationMs ?? 25,
      endsRun: extra.endsRun ?? false,
      input: call.input,
    };
    if (extra.truncatedChars !== undefined) execution.truncatedChars = extra.truncatedChars;
    return { kind: "tool", callId: call.callId, execution };
  };
}

/** The tool job returned a failure (the tool threw, timed out, ...): the model reads its text. */
export function toolFailed(
  failure: IToolCallFailure,
  extra: { durationMs?: number; endsRun?: boolean } = {},
): TOutcomeMaker {
  return (call) => ({
    kind: "tool",
    callId: call.callId,
    execution: {
      isError: true,
      text: failure.text,
      status: failure.status,
      errorCode: failure.errorCode,
      outcome: failure.outcome,
      durationMs: extra.durationMs ?? 25,
      endsRun: extra.endsRun ?? false,
      input: call.input,
    },
  });
}

/** The child job failed after its last attempt (an infrastructure failure). */
export function jobFailed(queue: "tools" | "approvals"): TOutcomeMaker {
  return (call) => ({ kind: "job-failed", callId: call.callId, queue, reason: "worker died" });
}

/**
 * The approval job's report. Like the approval worker, `effectiveInput` is the edited input, else the
 * parked one; `decidedAt` is the delivery time unless given.
 */
export function approval(
  decision: IApprovalOutcome["decision"],
  extra: Partial<Omit<IApprovalOutcome, "decision">> = {},
): TOutcomeMaker {
  return (call, at) => ({
    kind: "approval",
    callId: call.callId,
    approval: {
      approvalId: call.approvalId ?? approvalIdOf(call.callId),
      decision,
      decidedAt: at,
      effectiveInput: extra.editedInput ?? call.input,
      ...extra,
    },
  });
}

/** A human approved, and the tool job ran with the approved input: both reported by the same wait. */
export function approvedAndRan(
  output: unknown,
  extra: Partial<Omit<IApprovalOutcome, "decision">> = {},
): TOutcomeMaker[] {
  return [approval("approved", { approver: "ann", ...extra }), toolOk(output)];
}

// ---------------------------------------------------------------------------------------------------
// The driver

export function runRequest(overrides: Partial<TRunRequest> = {}): TRunRequest {
  return runRequestSchema.parse({ input: "Refund order 42.", userContext, maxSteps: 4, ...overrides });
}

export interface IPlayOptions {
  tools: IRunTools;
  replies: IScriptedReply[];
  /**
   * What each call's child jobs report, keyed `s<step>-c<index>`. A dispatched call without a script
   * reports `toolOk({ ran: key })`; a parked one is approved and runs at its first wait.
   */
  children?: Record<string, TCallScript>;
  request?: Partial<TRunRequest>;
  history?: TChatMessage[];
  instructions?: string;
  approvalTtlMsOf?: (toolName: string) => number;
  /** Cancels the run (or ends it at its deadline) before the first action for which it answers. */
  stopBefore?: (action: TRunAction, state: TRunState) => "cancelled" | "timed_out" | undefined;
  /** Stops driving before the first action for which it answers true: the state is left mid-run. */
  pauseBefore?: (action: TRunAction, state: TRunState) => boolean;
}

export interface IPlayed {
  state: TRunState;
  /** responseOf the last state (meaningful once the run finished). */
  response: IGatewayResponse;
  /**
   * The actions in order: `model`, `model final`, `decide c0 c2`, `wait c1`, `settle`, `stop cancelled`;
   * call keys are `c<index>` of the current step.
   */
  trace: string[];
  /** What each model call was offered. */
  plans: IModelRequestPlan[];
  /** Every state the run went through, the first (queued) included. */
  states: TRunState[];
  /** The verdict of every decided call, keyed `s<step>-c<index>`, in decision order. */
  verdicts: Array<[string, EToolCallVerdict]>;
  /** Every call the engine sent to a tool job or parked, keyed `s<step>-c<index>`, in order. */
  dispatched: string[];
  parked: string[];
  /** Every child report delivered so far (cumulative, as BullMQ reads a parent's children). */
  delivered: TChildOutcome[];
}

const maxActions = 200;

export function keyOf(call: Pick<TPlannedCall, "callId">): string {
  return call.callId.slice(runId.length + 1);
}

function shortKey(call: TPlannedCall): string {
  return `c${call.index}`;
}

export async function playRun(options: IPlayOptions): Promise<IPlayed> {
  let time = startTime;
  const now = (): number => {
    time += 1000;
    return time;
  };
  const { tools } = options;
  const replies = [...options.replies];
  const scripts = new Map(Object.entries(options.children ?? {}).map(([key, script]) => [key, [...script]]));
  const ttlOf = options.approvalTtlMsOf ?? (() => 60_000);
  const played: Omit<IPlayed, "state" | "response"> = {
    trace: [],
    plans: [],
    states: [],
    verdicts: [],
    dispatched: [],
    parked: [],
    delivered: [],
  };
  const created = createRunState({
    runId,
    threadId,
    request: runRequest(options.request),
    requestHash: "hash-1",
    now: time,
  });
  played.states.push(created);
  let state = startRun(created, options.history ?? [], now());
  played.states.push(state);

  for (let count = 0; count < maxActions; count += 1) {
    const action = nextAction(state, tools);
    if (action.type === "finished") return { ...played, state, response: responseOf(state) };
    if (options.pauseBefore?.(action, state)) return { ...played, state, response: responseOf(state) };
    const stopStatus = options.stopBefore?.(action, state);
    if (stopStatus) {
      played.trace.push(`stop ${stopStatus}`);
      state = stopRun(state, stopStatus, now());
    } else {
      state = await perform(action, state);
    }
    played.states.push(state);
  }
  throw new Error(`The run did not finish within ${maxActions} actions: ${played.trace.join(" | ")}`);

  async function perform(action: Exclude<TRunAction, { type: "finished" }>, current: TRunState) {
    switch (action.type) {
      case "call-model": {
        played.trace.push(action.final ? "model final" : "model");
        played.plans.push(planModelRequest(current, tools, options.instructions));
        const reply = replies.shift();
        if (!reply)
          throw new Error(`The model was called ${played.plans.length} times; fewer were scripted.`);
        return applyModelReply(current, replyEvent(reply, current.modelCalls), tools, now());
      }
      case "decide": {
        played.trace.push(`decide ${action.calls.map(shortKey).join(" ")}`);
        const verdicts = await evaluateVerdicts(action.calls, tools, {
          userContext: current.request.userContext,
          threadId: current.threadId,
        });
        for (const decided of action.calls) {
          const decision = verdicts.get(decided.callId);
          if (decision && decision !== toolGone) played.verdicts.push([keyOf(decided), decision.verdict]);
        }
        const applied = applyVerdicts(current, verdicts, now());
        played.dispatched.push(...applied.dispatched.map(keyOf));
        played.parked.push(...applied.parked.map(keyOf));
        return applied.state;
      }
      case "wait-children": {
        played.trace.push(`wait ${action.calls.map(shortKey).join(" ")}`);
        const at = now();
        let released = 0;
        for (const waiting of action.calls) {
          const entry = nextEntry(waiting);
          if (!entry) continue;
          released += 1;
          let view = waiting;
          for (const make of entry) {
            const outcome = make(view, at);
            played.delivered.push(outcome);
            if (outcome.kind === "approval" && outcome.approval.decision === "approved") {
              view = { ...view, input: outcome.approval.effectiveInput ?? view.input };
            }
          }
        }
        if (released === 0) {
          throw new Error(`Stuck: waiting for ${action.calls.map(keyOf).join(", ")} with nothing scripted.`);
        }
        return applyChildResults(current, played.delivered, ttlOf, at);
      }
      case "settle-step":
        played.trace.push("settle");
        return settleStep(current, now());
    }
  }

  function nextEntry(waiting: TPlannedCall): TOutcomeMaker[] | undefined {
    const key = keyOf(waiting);
    const script = scripts.get(key);
    if (script) {
      const entry = script.shift();
      return entry === undefined ? undefined : Array.isArray(entry) ? entry : [entry];
    }
    // Unscripted: the default reports once, then the call has nothing more to say.
    scripts.set(key, []);
    return waiting.state === "parked" ? approvedAndRan({ ran: key }) : [toolOk({ ran: key })];
  }
}

function replyEvent(reply: IScriptedReply, modelCall: number): IModelReplyEvent {
  return {
    text: reply.text,
    usage: reply.usage,
    toolCalls: reply.calls.map((scripted, index) => ({
      id: scripted.id ?? `call_${modelCall}_${index}`,
      name: scripted.name,
      argumentsJson: scripted.argumentsJson,
    })),
  };
}

/** The planned call of the current step (or the last result) with this `s<step>-c<index>` key. */
export function callOf(state: TRunState, key: string): TPlannedCall {
  const found = state.step?.calls.find((planned) => keyOf(planned) === key);
  if (!found) throw new Error(`No call ${key} in the current step.`);
  return found;
}

/** The stored result of a call, keyed `s<step>-c<index>`. */
export function resultOf(played: { state: TRunState }, key: string) {
  const found = played.state.toolResults.find((result) => keyOf(result) === key);
  if (!found) throw new Error(`No result for ${key}.`);
  return found;
}

/** The decide and wait actions of a run, step by step: the wave order. */
export function wavesOf(played: IPlayed): string[] {
  return played.trace.filter((entry) => entry.startsWith("decide") || entry.startsWith("wait"));
}
