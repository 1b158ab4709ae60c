import type { IWorkerContext } from "./worker-context.js";

/** Failed jobs removed per queue and pass; the rest go at the next pass. */
const jobsPerQueueAndPass = 1_000;

/**
 * Removes the jobs that failed for good longer ago than the retention, in every queue. BullMQ applies a
 * job's `removeOnFail: { age }` only when a later job of the same queue fails for good: a tool job that
 * failed once (its run went on with TG_TOOL_JOB_FAILED) stayed forever in a queue where nothing failed
 * again. Completed jobs need nothing: every completion removes the expired ones.
 */
export async function removeExpiredFailedJobs(context: IWorkerContext): Promise<number> {
  const { queues, options } = context.runtime;
  let removed = 0;
  for (const queue of [queues.runs, queues.tools, queues.approvals, queues.notifications]) {
    // A read first: cleaning writes an event to the queue's stream even when it removes nothing.
    if ((await queue.getFailedCount()) === 0) continue;
    removed += (await queue.clean(options.retentionMs, jobsPerQueueAndPass, "failed")).length;
  }
  return removed;
}
