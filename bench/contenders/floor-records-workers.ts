import { type Job, Queue, type RedisQueueBackend, Worker } from "bullmq";
import { Redis } from "ioredis";
import { benchOpenAi } from "../lib/model-transport.js";
import { toolOutputValue } from "../lib/scripts.js";
import type {
  IFloorRecordsRunData,
  IFloorRecordsToolData,
  IFloorRecordsToolResult,
  IRunContext,
} from "./floor-records-context.js";
import { runActivation } from "./floor-records-run.js";
import { defineRecordCommands, eventJson, eventsMaxLength, recordKeys } from "./floor-records-store.js";
import type { IFloorOptions } from "./floor-workers.js";

export interface IFloorRecordsOptions extends IFloorOptions {
  /** The model's reply streamed, its text written to the run's events. @defaultValue true (as Tollgate) */
  streaming?: boolean;
}

/**
 * The workers of "the floor with records" (floor-with-records.ts): the floor's run and tool workers
 * (floor-workers.ts), writing the records as they go (floor-records-run.ts). In the bench process or in
 * a worker process of their own (bench/floor-records-worker-process.ts).
 */
export async function startFloorRecordsWorkers(
  options: IFloorRecordsOptions,
): Promise<{ close(): Promise<void> }> {
  const openai = benchOpenAi(options.modelUrl);
  const connection = () => new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const base = { prefix: options.prefix };
  // Two connections: BullMQ defines its 64 scripts on the tool queue's, and ioredis copies a connection's
  // scripts into every MULTI and pipeline made on it (about 40 µs each here); the records' own writes go
  // on one that has only theirs. The checkpoint's MULTI needs both (BullMQ's add and the save).
  const records = defineRecordCommands(connection());
  const toolQueueConnection = defineRecordCommands(connection());
  const tools = new Queue<IFloorRecordsToolData>("tools", { ...base, connection: toolQueueConnection });
  const keys = recordKeys(options.prefix);
  const context: IRunContext = {
    openai,
    records,
    transactions: await (tools.getBackend() as unknown as RedisQueueBackend).client,
    tools,
    keys,
    streaming: options.streaming ?? true,
  };
  const runWorker = new Worker<IFloorRecordsRunData>(
    "runs",
    (job, token) => runActivation(context, job, token!),
    { ...base, connection: connection(), concurrency: options.concurrency },
  );
  const toolWorker = new Worker(
    "tools",
    async (job: Job<IFloorRecordsToolData>): Promise<IFloorRecordsToolResult> => {
      const started = performance.now();
      const value = toolOutputValue(job.data.arguments);
      const durationMs = Math.round(performance.now() - started);
      // Written before the job's completion, so a follower hears the call end before the run resumes.
      const settled = eventJson(
        "tool-call-settled",
        { callId: job.id, toolName: job.name, ok: true, durationMs },
        Date.now(),
      );
      await records.xadd(keys.events(job.data.runId), "MAXLEN", "~", eventsMaxLength, "*", "event", settled);
      return { toolCallId: job.data.toolCallId, callId: job.id!, value, durationMs };
    },
    { ...base, connection: connection(), concurrency: options.concurrency },
  );
  await Promise.all([runWorker.waitUntilReady(), toolWorker.waitUntilReady()]);
  return {
    async close() {
      await Promise.all([runWorker.close(), toolWorker.close()]);
      await tools.close();
      records.disconnect();
      toolQueueConnection.disconnect();
    },
  };
}
