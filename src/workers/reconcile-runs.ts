import { randomUUID } from "node:crypto";
import { endRunOutsideLoop, isTerminal } from "../engine/index.js";
import { runJobNames } from "../queue/index.js";
import { addRunJobs, runJobHold } from "../runtime/run-jobs.js";
import { removeExpiredFailedJobs } from "./remove-expired-jobs.js";
import { endingHandlers } from "./run-effect-handlers.js";
import type { IWorkerContext } from "./worker-context.js";

/** The job scheduler's id: one per deployment (prefix), whatever the number of workers. */
export const reconcileSchedulerId = "reconcile-runs";

/** Runs looked at per pass; the rest wait for the next pass (the oldest checks come first). */
const runsPerPass = 500;

/**
 * Retries of a run's failed job before the reconciler ends the run. A run job whose failure was never
 * recorded on the run failed while Redis refused writes (a full Redis: its attempts, a few backoffs long,
 * are spent within seconds); its state is intact and each step is idempotent, so the run goes on. A job
 * that keeps failing is ended after these.
 */
export const maxReconcilerRetries = 3;

export interface IReconcilePass {
  skipped: boolean;
  checked: number;
  requeued: number;
  retried: number;
  ended: number;
  /** Jobs that failed for good longer ago than the retention, removed by this pass. */
  removedFailedJobs: number;
}

/**
 * Every worker that serves the runs queue upserts the same scheduler: BullMQ keeps one, so the fleet
 * produces one reconcile job per interval, whichever worker takes it.
 */
export async function scheduleReconciler(context: IWorkerContext): Promise<void> {
  const { runtime } = context;
  await runtime.queues.runs.upsertJobScheduler(
    reconcileSchedulerId,
    { every: runtime.options.reconcileIntervalMs },
    {
      name: runJobNames.reconcile,
      data: { schemaVersion: 1 },
      opts: { removeOnComplete: true, removeOnFail: true },
    },
  );
}

/**
 * One pass of the reconciler. A run stays in the index of active runs until its ending; a run found there
 * that no job holds any more was lost by a write Redis refused (its job's add, or its failure's record).
 * A queued run gets its job again (a run that never started is safe to start); a run whose job failed gets
 * it retried (maxReconcilerRetries); any other run is ended failed TG_RUN_LOST through the common ending,
 * which releases its thread. A lock keeps passes from overlapping when one outlasts the interval. A pass
 * also removes jobs failed longer ago than the retention.
 */
export async function reconcileRuns(context: IWorkerContext): Promise<IReconcilePass> {
  const { runtime } = context;
  const locked = await runtime.redis.set(
    runtime.keys.reconcileLock(),
    randomUUID(),
    "PX",
    Math.max(100, Math.floor(runtime.options.reconcileIntervalMs / 2)),
    "NX",
  );
  const pass: IReconcilePass = {
    skipped: locked === null,
    checked: 0,
    requeued: 0,
    retried: 0,
    ended: 0,
    removedFailedJobs: 0,
  };
  if (pass.skipped) return pass;
  const checkedBefore = runtime.now() - runtime.options.reconcileAfterMs;
  const runIds = await runtime.runs.activeRunsCheckedBefore(checkedBefore, runsPerPass);
  for (const runId of runIds) {
    pass.checked += 1;
    try {
      const action = await reconcileRun(context, runId);
      if (action !== "healthy") {
        pass[action] += 1;
        context.metrics?.runReconciled(action);
      }
    } catch (error) {
      // One run that cannot be repaired now (Redis still full) must not stop the pass: next pass retries.
      context.logger.warn({ err: error, runId }, "reconciler could not repair a run; it tries again");
    }
  }
  if (pass.requeued + pass.retried + pass.ended > 0)
    context.logger.warn(pass, "reconciler repaired runs no job held");
  try {
    pass.removedFailedJobs = await removeExpiredFailedJobs(context);
  } catch (error) {
    context.logger.warn({ err: error }, "reconciler could not remove expired failed jobs; it tries again");
  }
  return pass;
}

/**
 * Moves the run's failed job back to wait (BullMQ's retry: attempts start again, children and their
 * results stay), unless it was retried maxReconcilerRetries times already. True when retried.
 */
async function retryFailedJob(context: IWorkerContext, runId: string): Promise<boolean> {
  const { runtime } = context;
  const job = await runtime.queues.runs.getJob(runId);
  if (!job) return false;
  if ((await runtime.runs.countReconcilerRetry(runId)) > maxReconcilerRetries) return false;
  await job.retry("failed");
  await runtime.runs.markChecked(runId);
  return true;
}

async function reconcileRun(
  context: IWorkerContext,
  runId: string,
): Promise<"healthy" | "requeued" | "retried" | "ended"> {
  const { runtime } = context;
  // The job first: a run that finishes between the two reads is then seen finished, never lost.
  const hold = await runJobHold(runtime, runId);
  const stored = await runtime.runs.load(runId);
  if (!stored || isTerminal(stored.state)) {
    await runtime.runs.forgetActive(runId);
    return "healthy";
  }
  if (hold.held) {
    await runtime.runs.markChecked(runId);
    return "healthy";
  }
  const logger = context.logger.child({ runId, threadId: stored.state.threadId, jobState: hold.jobState });
  if (stored.state.status === "queued" && hold.jobState === "unknown") {
    await addRunJobs(runtime, stored.state);
    await runtime.runs.markChecked(runId);
    logger.warn("run had no job (its add failed): queued again");
    return "requeued";
  }
  if (hold.jobState === "failed" && (await retryFailedJob(context, runId))) {
    logger.warn("run's job failed and that was never recorded on the run: its job retried");
    return "retried";
  }
  await endRunOutsideLoop(
    stored.state,
    {
      fail: {
        code: "TG_RUN_LOST",
        message: `No job held the run any more (its job was ${hold.jobState}); it was ended by the reconciler.`,
      },
    },
    endingHandlers({ ...context, logger }, { current: stored }),
    runtime.now(),
  );
  logger.warn("run no job held any more: ended failed TG_RUN_LOST");
  return "ended";
}
