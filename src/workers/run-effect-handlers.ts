import type { Job } from "bullmq";
import type { IRunEffectHandlers, TCancelReason, TChildOutcome, TModelOutcome } from "../engine/index.js";
import { TollgateError } from "../errors/index.js";
import { DEFAULT_MODEL } from "../gateway/index.js";
import { logContent } from "../observability/index.js";
import { outputRequestFormatOf } from "../output/index.js";
import { checkpointWithToolJobs } from "../runtime/checkpoint-with-tool-jobs.js";
import { addToolJobs, toolJobRunOf } from "../runtime/child-jobs.js";
import { parkCalls } from "../runtime/park-calls.js";
import { type IStoredRunRef, runEndingHandlers } from "../runtime/run-ending.js";
import { readChildOutcomes } from "./child-outcomes.js";
import type { IWatchedToolJobs } from "./local-tool-completions.js";
import { countUsage } from "./model-pacing.js";
import { tenantOfRun } from "./run-slot.js";
import { markRunJobTrace } from "./run-trace-marks.js";
import { TextDeltaBatcher } from "./text-delta-batcher.js";
import { toModelMessages } from "./to-model-messages.js";
import { tracedModelCall } from "./traced-model-call.js";
import { type IWorkerContext, outputSupportOf } from "./worker-context.js";

export type { IStoredRunRef } from "../runtime/run-ending.js";

/**
 * The effects that end a run, usable without a job: `onFailed`, the reconciler and the thread's clean-up
 * end runs from outside the run loop through these. The one ending (runtime/run-ending.ts), counted in
 * this worker's metrics.
 */
export function endingHandlers(
  context: IWorkerContext,
  ref: IStoredRunRef,
): Pick<IRunEffectHandlers, "finish" | "callsSettled"> {
  return runEndingHandlers(context.runtime, context, ref);
}

/**
 * The run worker's effect handlers: Redis and BullMQ under the engine's run loop. `cancelSignal` aborts
 * when the run is cancelled anywhere (the cancel broadcast); `stopAtStart` is the flag read with the
 * state, so a run cancelled before this activation stops without a model call.
 */
export function runEffectHandlers(args: {
  context: IWorkerContext;
  job: Job;
  token: string | undefined;
  ref: IStoredRunRef;
  cancelSignal: AbortSignal;
  stopAtStart: TCancelReason | undefined;
  /** The children as read with the state (a resumed job): the first `readChildren` answers with them. */
  children?: Promise<TChildOutcome[]> | undefined;
  /** This activation may have asked the model for the run's step already (a restart after a refused save). */
  repeatsStep?: boolean | undefined;
}): IRunEffectHandlers & { release(): void } {
  const { context, job, token, ref, cancelSignal } = args;
  const { runtime } = context;
  let prefetchedChildren = args.children;
  /**
   * The `tool-call-dispatched` events of the jobs just added, appended while the run job moves to
   * waiting-children: the run's own writes share one connection, so they stay in order without waiting.
   */
  let dispatchAnnounced: Promise<void> | undefined;
  /**
   * The step's tool jobs, watched from before they are added for their completion in this process
   * (local-tool-completions.ts; a failed add leaves the watch to the next dispatch or to `release` at the
   * activation's end); and whether the step parked a call (its approval job does not complete in a
   * moment, so the run job moves to waiting-children at once).
   */
  let dispatched: IWatchedToolJobs | undefined;
  let parked = false;
  const watchDispatched = (calls: ReadonlyArray<{ callId: string }>) => {
    dispatched?.stop();
    dispatched =
      runtime.options.fastToolWaitMs > 0
        ? context.localTools?.watch(calls.map((call) => call.callId))
        : undefined;
  };
  const forgetDispatched = () => {
    dispatched?.stop();
    dispatched = undefined;
  };
  /**
   * The last reply's token count, sent with the run's next write (its checkpoint or finish, which follows
   * every reply) in the same turn of the event loop: auto-pipelining puts both in one write, and the same
   * connection counts it before the run finishes. Sent after a checkpoint with tool jobs (a MULTI leaves
   * at once), and as the activation ends when no write took it (a save refused while the model answered):
   * every reply the model made is counted once. Counting is not worth the reply: a run never fails, nor
   * calls the model again, for it.
   */
  let uncountedUsage: (() => Promise<void>) | undefined;
  /** Awaits the `tool-call-dispatched` events the run's next write must follow. */
  const afterAnnounced = async () => {
    const pending = dispatchAnnounced;
    dispatchAnnounced = undefined;
    await pending;
  };
  /** Sends the last reply's usage count, once; never awaited, and never failing the run. */
  const sendUsage = () => {
    const count = uncountedUsage;
    uncountedUsage = undefined;
    void count?.().catch((error: unknown) =>
      context.logger.warn({ err: error }, "the reply's tokens could not be counted in the usage"),
    );
  };
  /** Awaits what the run's next write must follow, then sends the usage count ahead of it. */
  const beforeWrite = async () => {
    await afterAnnounced();
    sendUsage();
  };
  const ending = endingHandlers(context, ref);
  // One literal, not `{ ...ending, ... }`: a spread clone given the dozen handlers it lacks cost a map each
  // per activation (withFields in contracts).
  return {
    callsSettled: (results) => ending.callsSettled(results),
    /**
     * The activation ended: the tool jobs it watched and did not wait for are forgotten, and the last
     * reply's tokens are counted if no write took them (a save refused while the model answered).
     */
    release() {
      forgetDispatched();
      sendUsage();
    },
    async finish(state, events, release, save) {
      await beforeWrite();
      await ending.finish(state, events, release, save);
    },
    async control() {
      if (args.stopAtStart) return { stop: args.stopAtStart };
      if (!cancelSignal.aborted) return "continue";
      return { stop: (await runtime.runs.cancelReason(ref.current.state.runId)) ?? "cancelled" };
    },
    async callModel(plan): Promise<TModelOutcome> {
      await beforeWrite();
      const request = ref.current.state.request;
      const name = request.model ?? DEFAULT_MODEL;
      if (!context.models.has(name)) {
        // Checked at enqueue; a worker whose gateway lost the model since cannot honour the run.
        const message = `The run asks for the model "${name}", which this worker's gateway does not configure.`;
        return { type: "failed", error: { code: "TG_MODEL_FAILED", message } };
      }
      const messages = toModelMessages(plan.messages);
      const output = plan.output;
      // A structured answer is asked as each model tried supports it: a fallback without json_schema gets
      // json_object and the schema in a message, whatever the chosen model supports.
      const forModel = (modelName: string) => {
        if (output === undefined) return { messages };
        const format = outputRequestFormatOf(output, outputSupportOf(context, modelName));
        return {
          messages:
            format.instruction === undefined
              ? messages
              : [...messages, { role: "system" as const, content: format.instruction }],
          responseFormat: format.responseFormat,
        };
      };
      const deltas = new TextDeltaBatcher({
        log: runtime.textDeltas,
        clock: context.textDeltaClock,
        runId: ref.current.state.runId,
        step: plan.step,
        mayRepeatStep: job.attemptsMade > 0 || job.stalledCounter > 0 || args.repeatsStep === true,
        onWriteError: (error) =>
          context.logger.warn({ err: error }, "streamed text not written to the events"),
      });
      let outcome: Awaited<ReturnType<typeof context.models.complete>>;
      // The step's duration on the run's record: from the request to the whole answer, fallbacks included.
      const calledAt = runtime.now();
      try {
        const complete = () =>
          context.models.complete(
            name,
            Object.assign({}, forModel(name), {
              forModel,
              tools: plan.tools,
              abortSignal: cancelSignal,
              stream: deltas,
            }),
          );
        outcome = runtime.tracing
          ? await tracedModelCall(
              runtime.tracing,
              {
                runId: ref.current.state.runId,
                step: plan.step,
                modelName: name,
                endpointModel: context.models.endpointModelOf(name),
                endpointModelOf: (model) => context.models.endpointModelOf(model),
                messages,
              },
              complete,
            )
          : await complete();
      } finally {
        // The text is in the events before the checkpoint that records the reply.
        await deltas.close();
      }
      if (outcome.type === "aborted") return outcome;
      if (outcome.type === "rate-limited") {
        // The run parks until the pause ends (run-processor.ts), holding no worker.
        const { endpointModel, retryAfterMs, fallbacks } = outcome;
        return { type: "rate-limited", model: endpointModel, retryAfterMs, fallbacks };
      }
      if (outcome.type === "failed") {
        const { error, fallbacks } = outcome;
        if (cancelSignal.aborted) return { type: "aborted" };
        context.logger.warn({ err: error }, "model request failed; the run fails");
        return {
          type: "failed",
          error: TollgateError.isInstance(error)
            ? { code: error.code, message: error.message }
            : { code: "TG_MODEL_FAILED", message: "The model request failed." },
          fallbacks,
        };
      }
      const { reply, model, fallbacks } = outcome;
      logContent(context.logger, { model, text: reply.text, toolCalls: reply.toolCalls }, "model replied");
      const tenant = tenantOfRun(ref.current.state);
      // Usage and prices are per model: the model that answered, by the name its endpoint knows.
      const endpointModel = context.models.endpointModelOf(model);
      uncountedUsage = () => countUsage(context, tenant, endpointModel, reply.usage);
      return {
        type: "replied",
        reply: {
          text: reply.text,
          toolCalls: reply.toolCalls,
          usage: reply.usage,
          model,
          finishReason: reply.finishReason,
          durationMs: Math.max(0, runtime.now() - calledAt),
        },
        fallbacks,
      };
    },
    readChildren() {
      const prefetched = prefetchedChildren;
      prefetchedChildren = undefined;
      return prefetched ?? readChildOutcomes(runtime, ref.current.state.runId);
    },
    async waitForChildren() {
      const watched = dispatched;
      dispatched = undefined;
      const waitMs = runtime.options.fastToolWaitMs;
      const allCompleted = watched !== undefined && !parked && (await watched.wait(waitMs));
      watched?.stop();
      parked = false;
      // Every child this step added has completed: BullMQ's completions removed them from the run job's
      // dependencies and recorded their results, so moveToWaitingChildren would answer "nothing to wait
      // for". The run reads its children and goes on, still holding its lock.
      if (allCompleted) {
        await beforeWrite();
        return "reported";
      }
      const [moved] = await Promise.all([job.moveToWaitingChildren(token ?? ""), beforeWrite()]);
      return moved ? "blocked" : "reported";
    },
    async checkpoint(state, events) {
      await beforeWrite();
      ref.current = await runtime.runs.save(ref.current, state, events);
    },
    async addToolJobs(state, calls, announce) {
      await beforeWrite();
      watchDispatched(calls);
      await addToolJobs(runtime, toolJobRunOf(state), calls);
      dispatchAnnounced = runtime.runs.appendEvents(state.runId, announce);
      // Awaited by the next effect; a failure is that effect's.
      dispatchAnnounced.catch(() => undefined);
    },
    async checkpointWithToolJobs(state, events, calls, announce) {
      await afterAnnounced();
      watchDispatched(calls);
      try {
        ref.current = await checkpointWithToolJobs(
          runtime,
          ref.current,
          state,
          events,
          toolJobRunOf(state),
          calls,
          context.logger,
        );
      } finally {
        // The count goes out after the transaction, with the dispatch events below: one auto-pipelined
        // write. Sent before it, it left in a write of its own, as the MULTI is sent at once. Sent when the
        // checkpoint is refused too: the reply was made, and its tokens spent.
        sendUsage();
      }
      dispatchAnnounced = runtime.runs.appendEvents(state.runId, announce);
      dispatchAnnounced.catch(() => undefined);
    },
    async parkCalls(_state, calls) {
      await beforeWrite();
      // A parked call's approval job does not complete in a moment: the run job waits without a slot.
      parked = true;
      await parkCalls(runtime, calls, context.logger);
      // The activation that resumes the run starts a trace of its own, linked to this one.
      if (runtime.tracing) await markRunJobTrace(runtime, job, true);
      for (const call of calls) context.metrics?.approvalRequested(call.record.toolName);
    },
  };
}
