import { Job, type RedisQueueBackend, SpanKind } from "bullmq";
import type { Logger } from "pino";
import type { TRunEventInput } from "../contracts/index.js";
import type { IToolJobRun, IToolJobSpec, TRunState } from "../engine/index.js";
import { defineCheckpointCommand, type IRunCreateTransaction, type IStoredRun } from "../store/index.js";
import { addToolJobs, type IToolJob, toolJobsOf } from "./child-jobs.js";
import { closeFence, parentFenceOf, restoreFence } from "./parent-fence.js";
import type { ITollgateRuntime } from "./runtime.js";
import { forgetLoadedScripts, queueClientOf, sendScriptedTransaction } from "./transaction-scripts.js";

/**
 * Saves a run's checkpoint and adds the tool jobs it records in ONE MULTI/EXEC on the partition's slot,
 * all or nothing: one round trip where the save, then the add, were two. The guarantee of the old order
 * holds (a stale worker, whose save is refused, adds no job for calls the run never recorded): the run
 * job's parent fence (parent-fence.ts) stays closed unless the checkpoint saved, so BullMQ's adds of
 * the tool jobs, children of the run job, are refused in the same EXEC. A worker killed before EXEC
 * leaves neither; after it, both.
 *
 * Returns the run as saved; throws TG_STATE_CONFLICT when another worker saved since `stored` was read.
 */
export async function checkpointWithToolJobs(
  runtime: ITollgateRuntime,
  stored: IStoredRun,
  state: TRunState,
  events: TRunEventInput[],
  run: IToolJobRun,
  calls: readonly IToolJobSpec[],
  logger?: Pick<Logger, "debug">,
): Promise<IStoredRun> {
  const tools = runtime.queues.tools;
  const jobs = toolJobsOf(runtime, run, calls);
  // BullMQ's `add` span (when tracing is on): the tool jobs' process spans are its children, as with
  // `Queue#add`; one span for the step's jobs.
  return tools.trace(SpanKind.PRODUCER, "add", `${tools.name}.${jobs[0]?.name ?? ""}`, (_span, metadata) =>
    commit(runtime, stored, state, events, withTraceMetadata(jobs, metadata), run, calls, logger),
  );
}

async function commit(
  runtime: ITollgateRuntime,
  stored: IStoredRun,
  state: TRunState,
  events: TRunEventInput[],
  jobs: IToolJob[],
  run: IToolJobRun,
  calls: readonly IToolJobSpec[],
  logger: Pick<Logger, "debug"> | undefined,
): Promise<IStoredRun> {
  // BullMQ's scripts (and the checkpoint's), as its queue connection defines them; the MULTI goes on the
  // runtime's connection, which carries no ioredis scripts to copy into it (transaction-scripts.ts).
  const queueClient = queueClientOf(runtime.queues.runs.getBackend() as unknown as RedisQueueBackend);
  const definitions = queueClient instanceof Promise ? await queueClient : queueClient;
  defineCheckpointCommand(definitions as unknown as Parameters<typeof defineCheckpointCommand>[0]);
  const client = runtime.redis;
  const fence = parentFenceOf(runtime.queues.runs.toKey(state.runId));
  const parentOpts = { parentKey: fence.parentKey, parentDependenciesKey: `${fence.parentKey}:dependencies` };
  const callIds = jobs.map((job) => job.opts.jobId);
  const replies = await sendScriptedTransaction(
    client,
    definitions,
    async (multi, transaction) => {
      closeFence(multi, fence);
      runtime.runs.saveIn(transaction as unknown as IRunCreateTransaction, stored, state, events, fence);
      for (const job of jobs) {
        await new Job(runtime.queues.tools, job.name, job.data, job.opts, job.opts.jobId).addJob(
          transaction,
          parentOpts,
        );
      }
      restoreFence(multi, fence);
    },
    // [close, checkpoint, ...adds, restore]. The checkpoint did not run: the fence stayed closed, nothing
    // was written.
    (replies) => replies[1]?.[0] ?? null,
    { logger, fields: { callIds }, what: "checkpoint and tool jobs" },
  );
  const saved = runtime.runs.savedIn(replies[1]?.[1] as number, stored, state);
  const adds = replies.slice(2, 2 + jobs.length);
  // Saved, but an add did not go through (its script unknown to the master, its parent gone): the
  // calls are recorded now, so the plain add does what is left (a no-op for the jobs that exist), and
  // fails as it always did when the run job is gone.
  if (adds.some(([error, reply]) => error !== null || (typeof reply === "number" && reply < 0))) {
    if (adds.some(([error]) => error?.message.startsWith("NOSCRIPT"))) forgetLoadedScripts(client);
    await addToolJobs(runtime, run, calls);
  }
  return saved;
}

function withTraceMetadata(jobs: IToolJob[], metadata: string | undefined): IToolJob[] {
  if (metadata === undefined) return jobs;
  // An approved call's job keeps the context it carries (child-jobs.ts), as `Queue#add` keeps it.
  return jobs.map((job) =>
    job.opts.telemetry !== undefined ? job : { ...job, opts: { ...job.opts, telemetry: { metadata } } },
  );
}
