import { Queue, QueueEvents } from "bullmq";
import { Redis } from "ioredis";
import { type IChildService, startFloorWorkerProcess } from "../lib/child-services.js";
import { toolCallScript } from "../lib/scripts.js";
import type { IContender } from "./contender.js";
import { type IFloorOptions, type IFloorRunData, startFloorWorkers } from "./floor-workers.js";

/**
 * The floor: the same run designed directly on BullMQ, with no Tollgate code (bench/contenders/
 * floor-workers.ts); the caller adds the run job and waits with QueueEvents. What any queue-based design
 * pays at least. `workerProcess`: the workers in a process of their own, as `tollgate worker` runs.
 */
export async function bullmqFloor(options: IFloorOptions & { workerProcess?: boolean }): Promise<IContender> {
  const connection = () => new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const base = { prefix: options.prefix };
  const runs = new Queue<IFloorRunData>("runs", { ...base, connection: connection() });
  const events = new QueueEvents("runs", { ...base, connection: connection() });
  // job.waitUntilFinished adds a listener per waiting caller: 50 in flight is not a leak.
  runs.setMaxListeners(0);
  let workers: { close(): Promise<void> } | undefined;
  let process: IChildService | undefined;
  if (options.workerProcess) process = await startFloorWorkerProcess(options);
  else workers = await startFloorWorkers(options);
  await events.waitUntilReady();
  return {
    name: options.workerProcess ? "raw BullMQ run (floor), worker process" : "raw BullMQ run (floor)",
    childPids: process ? [process.pid] : [],
    async run(tag, calls = 1) {
      const job = await runs.add("run", {
        messages: [{ role: "user", content: toolCallScript(tag, calls) }],
        waitingForTools: false,
      });
      const answer = await job.waitUntilFinished(events);
      if (answer !== "done") throw new Error(`raw BullMQ run: unexpected answer ${JSON.stringify(answer)}`);
    },
    async close() {
      await workers?.close();
      await process?.stop();
      await Promise.all([runs.close(), events.close()]);
    },
  };
}
