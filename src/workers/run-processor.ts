import { DelayedError, type Job, WaitingChildrenError } from "bullmq";
import { type TChatMessage, withFields } from "../contracts/index.js";
import { interpretRun, isTerminal } from "../engine/index.js";
import { TollgateError } from "../errors/index.js";
import { jobLogger } from "../observability/index.js";
import { outputCheckerOf } from "../output/index.js";
import { runJobNames, runJobSchema, type TRunJob } from "../queue/index.js";
import { requestCancel } from "../runtime/request-cancel.js";
import { runJobPayloadSwap } from "../runtime/run-jobs.js";
import { type IRunJobPayloadSwap, type IStoredRun, isCarriedConflict, threadOfRun } from "../store/index.js";
import { readChildOutcomes } from "./child-outcomes.js";
import { maxModelPauseMs } from "./model-pacing.js";
import { reconcileRuns } from "./reconcile-runs.js";
import { runEffectHandlers } from "./run-effect-handlers.js";
import { tenantOfRun, waitForRunSlot } from "./run-slot.js";
import { handleScheduleTick } from "./schedule-tick.js";
import { waitForThreadTurn } from "./thread-turn.js";
import { approvalTtlMsOf, type IWorkerContext, runRejectOptionsOf, runToolsOf } from "./worker-context.js";

/**
 * The run job's processor. Each activation takes the run's state and hands it to the engine's run loop
 * with Redis and BullMQ handlers; it ends when the run finishes or the run job moves to waiting-children
 * (releasing its worker while tools run or approvals wait). A worker killed anywhere costs at most the
 * model call in flight: children have deterministic ids and completed ones are never run again.
 *
 * Where the state comes from: a new run's job carries it as its creation stored it, returned with the job
 * by BullMQ's moveToActive, so the first activation makes no read of its own. Every other activation (a
 * resume, a retry, a job taken over after a crash or a stalled lock) reads the state with its cancel flag
 * in one round trip. The carried state is checked where it is first saved (the checkpoint that leaves with
 * the first model request): not cancelled, not saved since, the very state stored; else that save is
 * refused, the model call aborted, and the activation starts again from a read (DESIGN-NOTES, "First
 * activation without a read").
 */
export function createRunProcessor(workerContext: IWorkerContext) {
  return async (job: Job, token?: string): Promise<unknown> => {
    if (job.name === runJobNames.deadline) return handleDeadline(workerContext, job);
    if (job.name === runJobNames.reconcile) return reconcileRuns(workerContext);
    if (job.name === runJobNames.scheduleTick) return handleScheduleTick(workerContext, job, token);
    const payload = runJobSchema.parse(job.data);
    // A payload that still carries the state (a run that waited for its thread or a slot) loses it with
    // the activation's first save.
    const jobPayload =
      payload.state !== undefined ? runJobPayloadSwap(workerContext.runtime, payload.runId) : undefined;
    const carried = carriedStateOf(workerContext, job, payload, jobPayload);
    // Parsed (or judged unusable, then read): the job object need not hold the JSON for the activation.
    if (payload.state !== undefined) delete (job.data as { state?: string }).state;
    if (!carried) return activateRun(workerContext, job, token, { runId: payload.runId, jobPayload });
    const activation: IActivation = { runId: payload.runId, carried, jobPayload };
    try {
      return await activateRun(workerContext, job, token, activation);
    } catch (error) {
      if (!isCarriedConflict(error)) throw error;
      // The run changed since its job was queued (cancelled, saved, or not the state stored): read it.
      delete activation.carried;
      activation.repeatsStep = true;
      return activateRun(workerContext, job, token, activation);
    }
  };
}

/** The state the run job carries, on its first activation only; undefined when it must be read. */
function carriedStateOf(
  context: IWorkerContext,
  job: Job,
  payload: TRunJob,
  jobPayload: IRunJobPayloadSwap | undefined,
): IStoredRun | undefined {
  if (payload.state === undefined || jobPayload === undefined || job.attemptsStarted > 1) return undefined;
  try {
    return context.runtime.runs.carriedByJob(payload.runId, payload.state, jobPayload);
  } catch {
    // Unreadable as this version reads states: the stored state is read (and judged) as any other.
    return undefined;
  }
}

interface IActivation {
  runId: string;
  /** The state the job carried (first activation); absent: read it. */
  carried?: IStoredRun;
  /** The run job's payload still carries a state: the first save drops it. */
  jobPayload?: IRunJobPayloadSwap | undefined;
  /** The model may have been asked for this step already in this activation (its text is retracted). */
  repeatsStep?: boolean;
  /** Set once the run counted as started, so a restarted activation does not count it again. */
  started?: boolean;
}

async function activateRun(
  workerContext: IWorkerContext,
  job: Job,
  token: string | undefined,
  activation: IActivation,
): Promise<unknown> {
  const { runId } = activation;
  // A job started before (back from waiting for its children, most often) reads its children in the
  // same round trip as its state: the engine asks for them first thing. A first start has none.
  const children = job.attemptsStarted > 1 ? readChildOutcomes(workerContext.runtime, runId) : undefined;
  children?.catch(() => undefined);
  const loaded = activation.carried ?? (await workerContext.runtime.runs.load(runId));
  const stored =
    loaded && !loaded.jobPayload && activation.jobPayload
      ? withFields(loaded, { jobPayload: activation.jobPayload })
      : loaded;
  // Not unrecoverable: the job's next attempt reads again. On a Redis Cluster a read can reach the node
  // a slot is migrating to before the run's keys arrive, and find nothing for a moment; failing the job
  // for good then left the run queued forever. A state that is really gone fails after the attempts.
  if (!stored) throw new TollgateError("TG_RUN_NOT_FOUND", `Run ${runId} has no stored state.`, { runId });
  const state = stored.state;
  const context = {
    ...workerContext,
    logger: jobLogger(workerContext.logger, {
      runId,
      threadId: state.threadId,
      queue: "runs",
      jobId: job.id,
    }),
  };
  let history: TChatMessage[] | undefined;
  if (state.status === "queued" && !stored.cancelReason) {
    // A run on a thread of its own is its head: no check, and no history to read but the one it was
    // created with (none, or a fork's: what the run it was forked from read). A resume on a shared thread
    // waits for its turn, then goes on with the history of the run it continues.
    if (!state.ownsThread && !(await waitForThreadTurn(context, job, token, state))) throw new DelayedError();
    if (!(await waitForRunSlot(context, job, token, state))) throw new DelayedError();
    history =
      state.ownsThread || state.historyCarried
        ? state.history
        : await context.runtime.threads.history(threadOfRun(state));
  } else if (!isTerminal(state)) {
    // A started run keeps its tenant's slot: each activation renews the slot's lease.
    await context.runtime.limits.renewSlot(tenantOfRun(state), runId);
  }
  // A run pins the MCP tools it starts with: its later steps, approvals and edits see what the model saw.
  if (context.mcp !== undefined && state.toolListHash === undefined && !isTerminal(state)) {
    state.toolListHash = await context.runtime.toolLists.pin(context.mcp.snapshot());
  }
  const tools = await runToolsOf(
    context,
    Object.assign({}, state.request, { toolListHash: state.toolListHash }),
  );
  // Also aborted (here alone) when a carried state's first save is refused: the model call that left
  // with it stops at once, as it does for a cancellation.
  const cancellation = context.cancelBus.register(runId);
  let releaseHandlers: (() => void) | undefined;
  try {
    const ref = { current: stored };
    const handlers = runEffectHandlers({
      context,
      job,
      token,
      ref,
      cancelSignal: cancellation.signal,
      stopAtStart: stored.cancelReason,
      children,
      repeatsStep: activation.repeatsStep,
    });
    releaseHandlers = handlers.release;
    if (activation.carried) {
      const checkpoint = handlers.checkpoint;
      handlers.checkpoint = async (next, events) => {
        try {
          await checkpoint(next, events);
        } catch (error) {
          if (isCarriedConflict(error)) cancellation.abort();
          throw error;
        }
      };
    }
    const outcome = await interpretRun({
      state,
      ...(history !== undefined ? { startWithHistory: history } : {}),
      tools,
      handlers,
      now: () => context.runtime.now(),
      instructions: state.request.instructions ?? context.runtime.gateway.settings.instructions,
      approvalTtlMsOf: (name) => approvalTtlMsOf(context, name, tools),
      rejectOptionsOf: (name) => runRejectOptionsOf(context, name, tools),
      outputChecker: state.request.output ? outputCheckerOf(state.request.output) : undefined,
      onStarted: () => {
        if (activation.started) return;
        activation.started = true;
        context.metrics?.runStarted();
        context.metrics?.runQueueWait(Math.max(0, context.runtime.now() - state.createdAt) / 1000);
        context.logger.info({ historyMessages: history?.length ?? 0 }, "run started");
      },
    });
    if (outcome.type === "waiting") throw new WaitingChildrenError();
    if (outcome.type === "paused") {
      // The model is paused fleet-wide: the run (saved before the call) waits as a delayed job, holding
      // no worker, and asks the model again when the pause ends.
      context.metrics?.modelPausedRun(outcome.model);
      const retryAfterMs = Math.min(outcome.retryAfterMs, maxModelPauseMs);
      await job.moveToDelayed(context.runtime.now() + retryAfterMs, token);
      throw new DelayedError();
    }
    return { runId, status: outcome.state.status };
  } finally {
    releaseHandlers?.();
    cancellation.release();
  }
}

/** The deadline job: a run past its `timeoutMs` is cancelled as timed_out, wherever it is. */
async function handleDeadline(context: IWorkerContext, job: Job): Promise<unknown> {
  const { runId } = runJobSchema.parse(job.data);
  const stored = await context.runtime.runs.load(runId);
  if (!stored || isTerminal(stored.state)) return { runId, skipped: true };
  await requestCancel(context.runtime, runId, "timed_out", context);
  return { runId, timedOut: true };
}
