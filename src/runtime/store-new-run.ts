import { Job, type RedisQueueBackend } from "bullmq";
import type { TRunEventInput } from "../contracts/index.js";
import type { TRunState } from "../engine/index.js";
import { TollgateError } from "../errors/index.js";
import {
  defineCreateRunCommand,
  type IRunCreateTransaction,
  isRedisUnavailableError,
  remainingRedisBudgetMs,
} from "../store/index.js";
import { addRunJobs, runJobsOf } from "./run-jobs.js";
import type { ITollgateRuntime } from "./runtime.js";
import {
  forgetLoadedScripts,
  loadScriptsOnce,
  queueClientOf,
  type TExecReplies,
  withScriptsBySha,
} from "./transaction-scripts.js";

export interface IStoredNewRun {
  /** False when the run existed already (an idempotency key's retry, or a conflict to refuse). */
  created: boolean;
  state: TRunState;
}

/**
 * Creates a run in one atomic step: its state, its place on its thread, its first event and its BullMQ
 * jobs in ONE MULTI/EXEC, the way BullMQ's FlowProducer adds a flow (`Job#addJob` on a MULTI). An error
 * answer then means nothing exists, and nothing is left for the reconciler to start later. Every key is
 * under the partition's prefix: one hash slot on a cluster.
 *
 * The MULTI goes on the request connection (it fails fast while Redis is away, nothing sent, and has the
 * command timeout and the request's Redis budget), with BullMQ's scripts by SHA as its queue connection
 * defines them (`withScriptsBySha`): defining them on the request connection would copy them into each
 * of its auto-pipelines. Every wait is bounded by the command timeout, or the request's budget left.
 *
 * The jobs are added whether or not the run existed: adding a job id that exists is a no-op, so an
 * idempotent retry adds nothing twice, and one whose job is gone (a crash of an older version between
 * its two steps) gets it back.
 */
export async function storeNewRun(
  runtime: ITollgateRuntime,
  state: TRunState,
  event: TRunEventInput,
  moreEvents: readonly TRunEventInput[] = [],
): Promise<IStoredNewRun> {
  const queue = runtime.queues.runs;
  // BullMQ's scripts, as its queue connection defines them (once ready; no wait once it was).
  const queueClient = queueClientOf(backendOf(runtime));
  const definitions =
    queueClient instanceof Promise
      ? await boundedWait(runtime, queueClient).catch(() => {
          throw unavailable();
        })
      : queueClient;
  defineCreateRunCommand(definitions as unknown as Parameters<typeof defineCreateRunCommand>[0]);
  // The MULTI goes on the request connection: it fails fast while Redis is away (nothing sent), has the
  // command timeout and the request's Redis budget, and carries no ioredis scripts to copy.
  const client = runtime.redis;
  if (client.status !== "ready") throw unavailable();
  for (let attempt = 1; ; attempt++) {
    const transaction = withScriptsBySha(definitions, client.multi());
    // One JSON for both: the run's stored state, and the copy its job carries to its first activation.
    const stateJson = JSON.stringify(state);
    runtime.runs.createIn(
      transaction as unknown as IRunCreateTransaction,
      state,
      event,
      stateJson,
      moreEvents,
    );
    for (const spec of runJobsOf(runtime, state, stateJson)) {
      await new Job(queue, spec.name, spec.data, spec.opts, spec.opts.jobId).addJob(transaction);
    }
    let replies: TExecReplies;
    try {
      const loading = loadScriptsOnce(client, transaction.scripts);
      if (loading) await boundedWait(runtime, loading);
      replies = await boundedWait(runtime, transaction.exec() as Promise<TExecReplies>);
    } catch (error) {
      if (error instanceof Error && error.message === notWritten) throw unavailable();
      if (error instanceof Error && error.name === "ReplyError") {
        // EXECABORT: a command was refused while queued (a full Redis), so none ran; that refusal says why.
        throw (error as Error & { previousErrors?: unknown[] }).previousErrors?.[0] ?? error;
      }
      if (!outcomeUnknown(error)) throw error;
      return resolveUnknown(runtime, state);
    }
    if (replies.some(([error]) => isNoScript(error))) forgetLoadedScripts(client);
    // The slot's master did not know the creation's script, so the run was not created: a restart, a
    // SCRIPT FLUSH, or a replica promoted since the scripts were loaded on every master (SCRIPT LOAD is not
    // replicated). Load them again and send the same MULTI: a job it added is there already, and adding
    // an existing job id is a no-op. Past the last attempt, settle takes back what ran.
    if (isNoScript(replies[0]?.[0] ?? null) && attempt < maxAttempts) continue;
    return settle(runtime, state, replies);
  }
}

/** EXEC answered: what each command did. */
async function settle(
  runtime: ITollgateRuntime,
  state: TRunState,
  replies: TExecReplies,
): Promise<IStoredNewRun> {
  const [creation, ...jobs] = replies;
  const creationError = creation?.[0] ?? null;
  const jobError = jobs.find(([error]) => error !== null)?.[0] ?? null;
  if (creationError === null) {
    const stored = runtime.runs.created((creation?.[1] as string | null) ?? null, state);
    // Redis takes one decision on a full memory for a whole EXEC (7.0+), so its commands fail or succeed
    // together. Should they ever part, the run that exists gets its jobs (or the reconciler adds them).
    if (jobError !== null && stored.state.status === "queued") await addRunJobs(runtime, stored.state);
    return stored;
  }
  // The run was not created: a job added without it would find no state and end; remove it anyway.
  if (jobs.some(([error]) => error === null)) {
    await Promise.allSettled(
      runJobsOf(runtime, state).map((spec) => runtime.queues.runs.remove(spec.opts.jobId)),
    );
  }
  throw creationError;
}

/**
 * EXEC got no answer in time (or the connection dropped): it may have run. A read on the same connection
 * is answered after the EXEC if Redis ever got it, so it tells whether the run exists. When the read gets
 * no answer either, the caller is told the outcome is unknown, with the run id to look up.
 */
async function resolveUnknown(runtime: ITollgateRuntime, state: TRunState): Promise<IStoredNewRun> {
  const exists = await boundedWait(
    runtime,
    runtime.redis.hexists(runtime.keys.run(state.runId), "state"),
  ).catch(() => undefined);
  if (exists === 0) throw unavailable();
  if (exists === 1) {
    const stored = await runtime.runs.load(state.runId).catch(() => undefined);
    if (stored) {
      const ours =
        stored.state.createdAt === state.createdAt && stored.state.requestHash === state.requestHash;
      return { created: ours, state: stored.state };
    }
  }
  throw new TollgateError(
    "TG_RUN_OUTCOME_UNKNOWN",
    `Redis did not answer once run ${state.runId} was sent: it may exist. Look it up (GET /v1/runs/${state.runId}) before creating it again.`,
    { runId: state.runId },
  );
}

/** A MULTI is sent at most this often when the slot's master lacks its scripts (each time loading them). */
const maxAttempts = 3;

function isNoScript(error: Error | null): boolean {
  return error?.message.startsWith("NOSCRIPT") === true;
}

/** ioredis' error for a command it did not send: the connection was down (no offline queue). */
const notWritten = "Stream isn't writeable and enableOfflineQueue options is false";

function backendOf(runtime: ITollgateRuntime): RedisQueueBackend {
  return runtime.queues.runs.getBackend() as unknown as RedisQueueBackend;
}

/** A connection failure after the command may have been written: ioredis' timeout, a dropped socket. */
function outcomeUnknown(error: unknown): boolean {
  return error instanceof BoundedWaitTimeout || isRedisUnavailableError(error);
}

class BoundedWaitTimeout extends Error {
  constructor() {
    super("Command timed out");
  }
}

/** Waits at most the request connection's command timeout: the queues' connection has none of its own. */
async function boundedWait<T>(runtime: ITollgateRuntime, promise: Promise<T>): Promise<T> {
  // Within an API request, no longer than what is left of its Redis budget (see withRedisBudget).
  const waitMs = Math.max(
    1,
    Math.min(runtime.options.commandTimeoutMs, remainingRedisBudgetMs() ?? Number.POSITIVE_INFINITY),
  );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BoundedWaitTimeout()), waitMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function unavailable(): TollgateError {
  return new TollgateError("TG_REDIS_UNAVAILABLE", "Redis cannot be reached; retry later.");
}
