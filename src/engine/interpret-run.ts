import type {
  IModelFallback,
  IToolResultPart,
  TCancelReason,
  TChatMessage,
  TRejectOption,
  TRunEventInput,
  TRunState,
} from "../contracts/index.js";
import type { IOutputChecker } from "../output/index.js";
import type { IModelReplyEvent } from "./apply-model-reply.js";
import type { TChildOutcome } from "./child-outcome.js";
import { evaluateVerdicts, type TCallVerdict } from "./decide-calls.js";
import { type IModelRequestPlan, type IRunTools, planModelRequest } from "./model-request.js";
import { nextAction, type TRunAction } from "./next-action.js";
import {
  effectOrder,
  type IParkSpec,
  type IThreadRelease,
  type IToolJobSpec,
  type ITransition,
  type TRunEffect,
} from "./run-effects.js";
import {
  childrenTransition,
  ensureChildrenTransition,
  failTransition,
  finishedTransition,
  modelFailedTransition,
  modelPausedTransition,
  modelReplyTransition,
  settleTransition,
  startTransition,
  stopTransition,
  verdictsTransition,
} from "./transitions.js";

/**
 * The model call's outcome, as the handler reports it. `fallbacks`: the switches from one named model to
 * the next on the way (each becomes a `model-fallback` event saved with the outcome).
 */
export type TModelOutcome =
  | { type: "replied"; reply: IModelReplyEvent; fallbacks?: IModelFallback[] }
  | { type: "failed"; error: { code: string; message: string }; fallbacks?: IModelFallback[] }
  /** The call was aborted (the run is being cancelled): the interpreter asks `control` what to do. */
  | { type: "aborted" }
  /**
   * Every model the call could use asked to slow down (a 429 with a delay, here or seen by another worker):
   * the loop saves the run as it is and leaves with a `paused` outcome; the host waits `retryAfterMs`.
   */
  | { type: "rate-limited"; model: string; retryAfterMs: number; fallbacks?: IModelFallback[] };

/** Before each action: go on, stop the run, or leave the loop with the state as it is (tests only). */
export type TControl = "continue" | "yield" | { stop: TCancelReason };

/**
 * What the interpreter needs from its host: the run worker's handlers use Redis and BullMQ; the unit
 * tests' handlers are in memory. The interpreter calls them in a fixed order: save the state, then
 * create resources (which announce themselves), then finish.
 */
export interface IRunEffectHandlers {
  control(action: TRunAction, state: TRunState): Promise<TControl> | TControl;
  callModel(plan: IModelRequestPlan): Promise<TModelOutcome>;
  /** The children that reported so far (cumulative). */
  readChildren(): Promise<TChildOutcome[]>;
  /** Releases the run until its children report: "blocked" ends the activation; "reported" goes on. */
  waitForChildren(): Promise<"blocked" | "reported">;
  /** Saves the state with its events in one atomic step (refused when another worker saved since). */
  checkpoint(state: TRunState, events: TRunEventInput[]): Promise<void>;
  /** Adds the tool jobs (a no-op for ids that exist), then appends `announce`. */
  addToolJobs(state: TRunState, calls: IToolJobSpec[], announce: TRunEventInput[]): Promise<void>;
  /**
   * `checkpoint` and `addToolJobs` in one atomic step, all or nothing, when the host can (the run
   * worker: one MULTI/EXEC): a refused save adds no job. Without it, the two in that order.
   */
  checkpointWithToolJobs?(
    state: TRunState,
    events: TRunEventInput[],
    calls: IToolJobSpec[],
    announce: TRunEventInput[],
  ): Promise<void>;
  /** Creates each approval record with its `tool-call-parked` event (one atomic step), then its job. */
  parkCalls(state: TRunState, calls: IParkSpec[]): Promise<void>;
  callsSettled(results: IToolResultPart[]): void;
  /**
   * The run is over: saves the final state with `events` when `save` (one atomic step), releases it from
   * its thread and wakes the next run of the thread.
   */
  finish(state: TRunState, events: TRunEventInput[], release: IThreadRelease, save: boolean): Promise<void>;
  /** Told of each verdict decided (traces and tests). */
  onVerdicts?(verdicts: ReadonlyMap<string, TCallVerdict>): void;
}

export type TInterpretOutcome =
  | { type: "finished"; state: TRunState }
  /** Waiting for child jobs: the run job released its worker. */
  | { type: "waiting"; state: TRunState }
  | { type: "yielded"; state: TRunState }
  /** The model is paused (rate limited): the run is saved and asks again after `retryAfterMs`. */
  | { type: "paused"; state: TRunState; model: string; retryAfterMs: number };

export interface IInterpretArgs {
  /** The state as loaded. */
  state: TRunState;
  /**
   * A queued run at the head of its thread starts with the thread's history as it is now (saved with the
   * next checkpoint, just before the model call).
   */
  startWithHistory?: TChatMessage[];
  /** Told when the run started in this activation (metrics, logs). */
  onStarted?: () => void;
  tools: IRunTools;
  handlers: IRunEffectHandlers;
  now: () => number;
  instructions?: string | undefined;
  approvalTtlMsOf: (toolName: string) => number;
  /** A tool's named reject options (the tool's, else the gateway's): parked calls offer them. */
  rejectOptionsOf?: ((toolName: string) => TRejectOption[] | undefined) | undefined;
  /** Checks final answers against the run's output schema; given when the run asked for one. */
  outputChecker?: IOutputChecker | undefined;
}

/**
 * The one run loop, shared by the run worker and the engine's unit tests: asks the engine what to do
 * next, gathers what the action needs through the handlers, applies the engine's transition and carries
 * out its effects in order. A change is saved once, just before the next effect that acts on the world
 * (a model call, child jobs, an approval, waiting), so one activation saves as few times as it can.
 */
export async function interpretRun(args: IInterpretArgs): Promise<TInterpretOutcome> {
  const { tools, handlers, now } = args;
  let state = args.state;
  let events: TRunEventInput[] = [];
  let dirty = false;
  // An activation may be a resume from waiting-children (or after a crash): children may have reported.
  let mustReadChildren = true;

  const flush = async () => {
    if (!dirty) return;
    await handlers.checkpoint(state, events);
    events = [];
    dirty = false;
  };
  const apply = async (transition: ITransition): Promise<boolean> => {
    if (transition.state !== state || transition.events.length > 0) dirty = true;
    state = transition.state;
    events.push(...transition.events);
    const effects = [...transition.effects].sort((a, b) => effectOrder[a.type] - effectOrder[b.type]);
    for (const effect of effects) {
      if (await perform(effect)) return true;
    }
    return false;
  };
  /** Carries out one effect; true once the run is finished. */
  const perform = async (effect: TRunEffect): Promise<boolean> => {
    switch (effect.type) {
      case "add-tool-jobs":
        if (dirty && effect.calls.length > 0 && handlers.checkpointWithToolJobs) {
          // The save the jobs need goes with them: one step, and still no job without its save.
          await handlers.checkpointWithToolJobs(state, events, effect.calls, effect.announce);
          events = [];
          dirty = false;
          return false;
        }
        await flush();
        await handlers.addToolJobs(state, effect.calls, effect.announce);
        return false;
      case "park-calls":
        await flush();
        await handlers.parkCalls(state, effect.calls);
        return false;
      case "calls-settled":
        handlers.callsSettled(effect.results);
        return false;
      case "finish":
        await handlers.finish(state, events, effect.release, dirty);
        events = [];
        dirty = false;
        return true;
    }
  };

  if (args.startWithHistory && state.status === "queued") {
    await apply(startTransition(state, args.startWithHistory, now()));
    args.onStarted?.();
  }
  for (;;) {
    const action = nextAction(state, tools);
    if (action.type === "finished") {
      await apply(finishedTransition(state));
      return { type: "finished", state };
    }
    const control = await handlers.control(action, state);
    if (control === "yield") return { type: "yielded", state };
    if (control !== "continue") {
      await apply(stopTransition(state, control.stop, now()));
      return { type: "finished", state };
    }
    switch (action.type) {
      case "call-model": {
        const plan = planModelRequest(state, tools, args.instructions);
        const outcome = await callModelWhileSaving(flush(), handlers.callModel(plan));
        if (outcome.type === "aborted") continue;
        if (outcome.type === "rate-limited") {
          await apply(modelPausedTransition(state, outcome.fallbacks ?? []));
          await flush();
          return { type: "paused", state, model: outcome.model, retryAfterMs: outcome.retryAfterMs };
        }
        const transition =
          outcome.type === "failed"
            ? modelFailedTransition(state, outcome.error, now(), outcome.fallbacks)
            : await modelReplyTransition(state, outcome.reply, plan, tools, now(), {
                fallbacks: outcome.fallbacks,
                outputChecker: args.outputChecker,
              });
        if (await apply(transition)) return { type: "finished", state };
        break;
      }
      case "decide": {
        const verdicts = await evaluateVerdicts(action.calls, tools, {
          userContext: state.request.userContext,
          threadId: state.threadId,
        });
        handlers.onVerdicts?.(verdicts);
        await apply(verdictsTransition(state, verdicts, args, now()));
        // Just added: nothing to read yet. If they all finish before the wait, the wait says so.
        mustReadChildren = false;
        break;
      }
      case "wait-children": {
        if (mustReadChildren) {
          mustReadChildren = false;
          const outcomes = await handlers.readChildren();
          const transition = childrenTransition(state, outcomes, args.approvalTtlMsOf, now());
          await apply(transition.changed ? transition : ensureChildrenTransition(state, args, now()));
          if (transition.changed) break;
        }
        await flush();
        if ((await handlers.waitForChildren()) === "blocked") return { type: "waiting", state };
        mustReadChildren = true;
        break;
      }
      case "settle-step":
        await apply(settleTransition(state, now()));
        break;
    }
  }
}

/**
 * Ends a run from outside its loop (its job failed for good, or no job holds it any more) through the
 * same effects as every other ending: the final save, the release from its thread, the wake-up.
 */
export async function endRunOutsideLoop(
  state: TRunState,
  ending: { stop: TCancelReason } | { fail: { code: string; message: string } },
  handlers: Pick<IRunEffectHandlers, "finish" | "callsSettled">,
  now: number,
): Promise<TRunState> {
  const transition =
    "stop" in ending ? stopTransition(state, ending.stop, now) : failTransition(state, ending.fail, now);
  const changed = transition.state !== state;
  for (const effect of transition.effects) {
    if (effect.type === "calls-settled") handlers.callsSettled(effect.results);
    if (effect.type === "finish")
      await handlers.finish(transition.state, transition.events, effect.release, changed);
  }
  return transition.state;
}

/**
 * The save before a model call travels with the request instead of ahead of it: the call changes nothing
 * in the world (a crash repeats it either way), so one round trip leaves the run's critical path per step.
 * The save still comes first where it matters: the reply is applied only once the save succeeded, and a
 * failed save fails the activation (the reply is dropped, as after a crash). Both are awaited before
 * either outcome counts, so no later write of the activation races the save.
 */
async function callModelWhileSaving(
  saving: Promise<void>,
  calling: Promise<TModelOutcome>,
): Promise<TModelOutcome> {
  const [saved, called] = await Promise.allSettled([saving, calling]);
  if (saved.status === "rejected") throw saved.reason;
  if (called.status === "rejected") throw called.reason;
  return called.value;
}
