import type { Queue } from "bullmq";
import type { GatewayClient } from "../../src/producer/index.js";
import { clientInternals } from "./internals.js";

/** One queue of every partition the client reaches (one with `partitions: 1`). */
export function queuesOf(client: GatewayClient, name: "runs" | "tools" | "approvals"): Queue[] {
  return clientInternals(client).partitions.all.map((runtime) => runtime.queues[name]);
}

/** Job counts of one queue summed over every partition. */
export async function jobCountsOf(
  client: GatewayClient,
  name: "runs" | "tools" | "approvals",
  ...states: Parameters<Queue["getJobCounts"]>
): Promise<Record<string, number>> {
  const total: Record<string, number> = {};
  for (const queue of queuesOf(client, name)) {
    for (const [state, count] of Object.entries(await queue.getJobCounts(...states))) {
      total[state] = (total[state] ?? 0) + count;
    }
  }
  return total;
}
