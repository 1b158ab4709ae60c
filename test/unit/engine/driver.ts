import type {
  EToolCallVerdict,
  IGatewayResponse,
  ITokenUsage,
  IUserContext,
  TCancelReason,
  TChatMessage,
} from "../../../src/contracts/index.js";
import {
  approvalIdOf,
  createRunState,
  type IModelReplyEvent,
  type IModelRequestPlan,
  type IRunEffectHandlers,
  type IRunTools,
  interpretRun,
  rawInputOf,
  responseOf,
  runRequestSchema,
  type TApprovalReport,
  type TChildOutcome,
  type TPlannedCall,
  type TRunAction,
  type TRunRequest,
  type TRunState,
  toolGone,
} from "../../../src/engine/internals.js";
import { outputCheckerOf } from "../../../src/output/index.js";
import { type IToolCallFailure, type IToolExecution, outputToText } from "../../../src/tools/index.js";

/**
 * A pure driver of the run engine: it plays a whole run through the same run loop as the run worker
 * (interpretRun), with in-memory effect handlers, against a scripted sequence of model replies and a
 * script of what each call's child jobs report. No Redis, no timers: ids are fixed and time is a counter.
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
  /** The endpoint's finish_reason; "length" cuts the answer. */
  finishReason?: string;
  /** The named model that answered (recorded in the run's modelReplies); none unless given. */
  model?: string;
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

/** A text answer the endpoint cut at its token limit (finish_reason "length"). */
export function answerCut(text: string): IScriptedReply {
  return { text, calls: [], usage: defaultUsage, finishReason: "length" };
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
      input: rawInputOf(call),
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
      input: rawInputOf(call),
    },
  });
}

/** The child job failed after its last attempt (an infrastructure failure). */
export function jobFailed(queue: "tools" | "approvals"): TOutcomeMaker {
  return (call) => ({ kind: "job-failed", callId: call.callId, queue, reason: "worker died" });
}

/** The approval job's report; `decidedAt` is the delivery time unless given. */
export function approval(
  decision: TApprovalReport["decision"],
  extra: Partial<Omit<TApprovalReport, "decision">> = {},
): TOutcomeMaker {
  return (call, at) => ({
    kind: "approval",
    callId: call.callId,
    approval: {
      approvalId: call.approvalId ?? approvalIdOf(call.callId),
      decision,
      decidedAt: at,
      ...extra,
    },
  });
}

/** A human approved, and the tool job ran with the approved input: both reported by the same wait. */
export function approvedAndRan(
  output: unknown,
  extra: Partial<Omit<TApprovalReport, "decision">> = {},
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
  /** The state to play from (a fork's first state); default: a new run of `request`. */
  start?: TRunState;
  history?: TChatMessage[];
  instructions?: string;
  approvalTtlMsOf?: (toolName: string) => number;
  /** Cancels the run (or ends it at its deadline) before the first action for which it answers. */
  stopBefore?: (action: TRunAction, state: TRunState) => TCancelReason | undefined;
  /** Stops driving before the first action for which it answers true: the state is left mid-run. */
  pauseBefore?: (action: TRunAction, state: TRunState) => boolean;
  /**
   * Stands in for the save (checkpoint): resolves when it succeeded, rejects when it was refused.
   * `modelCalls` tells how many times the model was called so far.
   */
  save?: (state: TRunState, modelCalls: () => number) => Promise<void>;
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
  const created =
    options.start ??
    createRunState({
      runId,
      threadId,
      request: runRequest(options.request),
      requestHash: "hash-1",
      now: time,
    });
  played.states.push(created);
  let actions = 0;
  let waitingCalls: TPlannedCall[] = [];
  const jobsAdded = new Set<string>();
  const seen = (state: TRunState) => {
    if (played.states.at(-1) !== state) played.states.push(state);
  };

  // The same run loop as the run worker's, with its effects kept in memory.
  const handlers: IRunEffectHandlers = {
    control(action, state) {
      seen(state);
      actions += 1;
      if (actions > maxActions) {
        throw new Error(`The run did not finish within ${maxActions} actions: ${played.trace.join(" | ")}`);
      }
      if (action.type === "wait-children") waitingCalls = action.calls;
      if (options.pauseBefore?.(action, state)) return "yield";
      const stopStatus = options.stopBefore?.(action, state);
      if (stopStatus) {
        played.trace.push(`stop ${stopStatus}`);
        return { stop: stopStatus };
      }
      if (action.type === "decide") played.trace.push(`decide ${action.calls.map(shortKey).join(" ")}`);
      if (action.type === "settle-step") played.trace.push("settle");
      return "continue";
    },
    async callModel(plan) {
      played.trace.push(plan.final ? "model final" : "model");
      played.plans.push(plan);
      const reply = replies.shift();
      if (!reply) throw new Error(`The model was called ${played.plans.length} times; fewer were scripted.`);
      return { type: "replied", reply: replyEvent(reply, played.plans.length - 1) };
    },
    async readChildren() {
      return played.delivered;
    },
    async waitForChildren() {
      played.trace.push(`wait ${waitingCalls.map(shortKey).join(" ")}`);
      const at = time + 1000;
      let released = 0;
      for (const waiting of waitingCalls) {
        const entry = nextEntry(waiting);
        if (!entry) continue;
        released += 1;
        for (const make of entry) played.delivered.push(make(waiting, at));
      }
      if (released === 0) {
        throw new Error(`Stuck: waiting for ${waitingCalls.map(keyOf).join(", ")} with nothing scripted.`);
      }
      return "reported";
    },
    async checkpoint(state) {
      seen(state);
      await options.save?.(state, () => played.plans.length);
    },
    async addToolJobs(state, calls) {
      seen(state);
      for (const job of calls) {
        // Adding a job id twice is a no-op, as in BullMQ.
        if (jobsAdded.has(job.callId)) continue;
        jobsAdded.add(job.callId);
        played.dispatched.push(keyOf(job));
      }
    },
    async parkCalls(state, calls) {
      seen(state);
      for (const { record } of calls) {
        if (!played.parked.includes(keyOf(record))) played.parked.push(keyOf(record));
      }
    },
    callsSettled() {},
    async finish(state) {
      seen(state);
    },
    onVerdicts(verdicts) {
      for (const [callId, decision] of verdicts) {
        if (decision !== toolGone && !("invalid" in decision)) {
          played.verdicts.push([keyOf({ callId }), decision.verdict]);
        }
      }
    },
  };
  const outcome = await interpretRun({
    state: created,
    startWithHistory: options.history ?? created.history,
    tools,
    handlers,
    now,
    instructions: options.instructions,
    approvalTtlMsOf: ttlOf,
    // As the run worker does: a checker only for a run that asked for a structured answer.
    outputChecker: created.request.output ? outputCheckerOf(created.request.output) : undefined,
  });
  seen(outcome.state);
  return { ...played, state: outcome.state, response: responseOf(outcome.state) };

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
    ...(reply.finishReason !== undefined ? { finishReason: reply.finishReason } : {}),
    ...(reply.model !== undefined ? { model: reply.model } : {}),
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
