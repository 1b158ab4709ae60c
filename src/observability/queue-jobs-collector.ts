import type { JobType, Queue } from "bullmq";
import type { Registry } from "prom-client";
import { gauge } from "./instruments.js";
import { withTimeout } from "./with-timeout.js";

/** A BullMQ queue whose job counts `tollgate_queue_jobs` reports; only `getJobCounts` is used. */
export interface IWatchedQueue {
  /** The label value: the queue's name without prefix (`runs`, `tools`, `approvals`). */
  name: string;
  queue: Pick<Queue, "getJobCounts"> & Partial<Pick<Queue, "getJobs">>;
}

export interface IQueueJobsCollectorOptions {
  states: readonly JobType[];
  timeoutMs: number;
  onError: (error: unknown) => void;
  /** Epoch milliseconds, for the age of the oldest waiting job. */
  now: () => number;
  /** Wraps the refresh that runs at scrape time (to cache it). */
  throttle: (refresh: () => Promise<void>) => () => Promise<void>;
}

/**
 * Reads job counts of the watched queues into the `tollgate_queue_jobs` gauge. Each queue is read on
 * its own: one that fails or hangs keeps its last values and counts an error, the others still update.
 */
export function createQueueJobsCollector(registry: Registry, options: IQueueJobsCollectorOptions) {
  const jobsGauge = gauge(registry, "queueJobs", () => refreshAtScrape());
  const oldestGauge = gauge(registry, "queueOldestWaitingAge", () => refreshAtScrape());
  // Keyed by name so that watching a queue twice (e.g. a worker restarted in process) adds no series.
  const watched = new Map<string, IWatchedQueue>();

  async function readQueue({ name, queue }: IWatchedQueue): Promise<void> {
    try {
      const counts = await withTimeout(
        queue.getJobCounts(...options.states),
        options.timeoutMs,
        `getJobCounts of queue ${name}`,
      );
      for (const state of options.states) {
        jobsGauge.set({ queue: name, state }, counts[state] ?? 0);
      }
      if (queue.getJobs) {
        // Oldest first (asc); one job read, whatever the backlog.
        const [oldest] = await withTimeout(
          queue.getJobs(["wait"], 0, 0, true),
          options.timeoutMs,
          `oldest waiting job of queue ${name}`,
        );
        const ageSeconds = oldest ? Math.max(0, (options.now() - oldest.timestamp) / 1000) : 0;
        oldestGauge.set({ queue: name }, ageSeconds);
      }
    } catch (error) {
      options.onError(error);
    }
  }

  const refreshAtScrape = options.throttle(async () => {
    await Promise.all([...watched.values()].map(readQueue));
  });

  return {
    watch(queues: readonly IWatchedQueue[]): void {
      for (const entry of queues) {
        watched.set(entry.name, entry);
      }
    },
  };
}
