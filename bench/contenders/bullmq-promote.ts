import { EventEmitter, once } from "node:events";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";

/**
 * The approvals floor: a delayed BullMQ job (a parked call) promoted, and the time until its worker
 * starts processing it. What releasing a parked job costs at least on BullMQ.
 */
export async function bullmqPromote(options: { redisUrl: string; prefix: string }) {
  const connection = () => new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue("parked", { prefix: options.prefix, connection: connection() });
  const starts = new EventEmitter();
  const worker = new Worker(
    "parked",
    async (job) => {
      starts.emit(job.id!, performance.now());
    },
    { prefix: options.prefix, connection: connection(), concurrency: 8 },
  );
  await worker.waitUntilReady();
  return {
    name: "raw BullMQ: delayed job promoted → processing start (floor)",
    /** Parks a job, promotes it, resolves with promote() called → processor started (ms). */
    async promoteToStart(tag: string): Promise<number> {
      const job = await queue.add(
        "call",
        { tag, input: { amount: 1 } },
        { jobId: `parked-${tag}`, delay: 3_600_000 },
      );
      const started = once(starts, job.id!) as Promise<[number]>;
      const promotedAt = performance.now();
      await job.promote();
      const [startedAt] = await started;
      return startedAt - promotedAt;
    },
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}
