import type { Redis } from "ioredis";
import type { GatewayClient } from "../../src/producer/index.js";
import { runJobNames } from "../../src/queue/index.js";
import { clientInternals } from "../helpers/internals.js";

/** Every key under the prefix (queues and Tollgate's own keys). */
export async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== "0");
  return keys.sort();
}

/**
 * Jobs left active, waiting for children, waiting or delayed in any queue once every run ended. The
 * reconciler's next pass (one delayed job from its scheduler on the runs queue) is not a run's job.
 */
export async function unfinishedJobs(client: GatewayClient): Promise<Record<string, Record<string, number>>> {
  const { runs, tools, approvals } = clientInternals(client).runtime.queues;
  const left: Record<string, Record<string, number>> = {};
  for (const [name, queue] of Object.entries({ runs, tools, approvals })) {
    const counts = await queue.getJobCounts("active", "waiting-children", "wait", "prioritized", "delayed");
    if (queue === runs && counts.delayed && counts.delayed > 0) {
      const delayed = await queue.getDelayed();
      counts.delayed = delayed.filter((job) => job.name !== runJobNames.reconcile).length;
    }
    const nonZero = Object.fromEntries(Object.entries(counts).filter(([, count]) => count > 0));
    if (Object.keys(nonZero).length > 0) left[name] = nonZero;
  }
  return left;
}

/** Jobs that failed for good in any queue, with BullMQ's reason and counters: printed when a check fails. */
export async function failedJobs(client: GatewayClient): Promise<string[]> {
  const { runs, tools, approvals } = clientInternals(client).runtime.queues;
  const lines: string[] = [];
  for (const [name, queue] of Object.entries({ runs, tools, approvals })) {
    for (const job of await queue.getFailed()) {
      lines.push(
        `${name}:${job.id} attempts=${job.attemptsMade}/${job.opts.attempts ?? 1} stalls=${job.stalledCounter} reason=${job.failedReason}`,
      );
    }
  }
  return lines;
}
