import { type Job, Queue, QueueEvents, WaitingChildrenError, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { IContender } from "./contender.js";

/** A bare parent → child → parent hop on BullMQ: no model, no payload. The queue's own floor. */
export async function bullmqHop(options: {
  redisUrl: string;
  prefix: string;
  concurrency: number;
}): Promise<IContender> {
  const connection = () => new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const base = { prefix: options.prefix };
  const parents = new Queue("parents", { ...base, connection: connection() });
  const children = new Queue("children", { ...base, connection: connection() });
  const events = new QueueEvents("parents", { ...base, connection: connection() });
  const parentWorker = new Worker(
    "parents",
    async (job: Job<{ step: number }>, token?: string) => {
      if (job.data.step === 0) {
        await children.add("child", {}, { parent: { id: job.id!, queue: job.queueQualifiedName } });
        await job.updateData({ step: 1 });
        if (await job.moveToWaitingChildren(token!)) throw new WaitingChildrenError();
      }
      return "done";
    },
    { ...base, connection: connection(), concurrency: options.concurrency },
  );
  const childWorker = new Worker("children", async () => 1, {
    ...base,
    connection: connection(),
    concurrency: options.concurrency,
  });
  await Promise.all([parentWorker.waitUntilReady(), childWorker.waitUntilReady(), events.waitUntilReady()]);
  return {
    name: "bare BullMQ hop parent→child→parent",
    childPids: [],
    async run() {
      const job = await parents.add("parent", { step: 0 });
      await job.waitUntilFinished(events);
    },
    async close() {
      await Promise.all([parentWorker.close(), childWorker.close()]);
      await Promise.all([parents.close(), children.close(), events.close()]);
    },
  };
}
