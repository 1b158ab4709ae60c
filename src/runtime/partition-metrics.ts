import type { Job, JobType, Queue } from "bullmq";
import type { IWatchedQueue } from "../observability/index.js";
import { allQueueNames } from "../queue/index.js";
import type { ITollgateRuntime } from "./runtime.js";

/**
 * What `createMetrics` reads at scrape time, over every partition given: pending approvals summed, and
 * each queue seen as one (job counts summed, the oldest waiting job of all), so the metrics, alerts and
 * autoscaling rules keep one series per queue whatever the number of partitions.
 */
export function partitionMetricsSources(runtimes: readonly ITollgateRuntime[]): {
  pendingApprovals: () => Promise<number>;
  queues: IWatchedQueue[];
} {
  return {
    pendingApprovals: async () => {
      const counts = await Promise.all(runtimes.map((runtime) => runtime.approvals.countPending()));
      return counts.reduce((sum, count) => sum + count, 0);
    },
    queues: allQueueNames.map((name) => ({
      name,
      queue: queueAcrossPartitions(runtimes.map((runtime) => runtime.queues[name])),
    })),
  };
}

/** One queue of several partitions seen as one: counts summed, the oldest waiting job of all. */
export function queueAcrossPartitions(queues: readonly Queue[]): IWatchedQueue["queue"] {
  if (queues.length === 1) return queues[0]!;
  return {
    async getJobCounts(...types: JobType[]) {
      const counts = await Promise.all(queues.map((queue) => queue.getJobCounts(...types)));
      const total: Record<string, number> = {};
      for (const count of counts) {
        for (const [state, jobs] of Object.entries(count)) total[state] = (total[state] ?? 0) + jobs;
      }
      return total;
    },
    // Only the oldest waiting job is asked for (start 0, end 0, ascending): the oldest of the oldest.
    async getJobs(types?: JobType[] | JobType, start?: number, end?: number, asc?: boolean) {
      const pages = await Promise.all(queues.map((queue) => queue.getJobs(types, start, end, asc)));
      const jobs: Job[] = pages
        .flat()
        .sort((a, b) => (asc ? a.timestamp - b.timestamp : b.timestamp - a.timestamp));
      return end === undefined || end < 0 ? jobs : jobs.slice(0, end - (start ?? 0) + 1);
    },
  } as IWatchedQueue["queue"];
}
