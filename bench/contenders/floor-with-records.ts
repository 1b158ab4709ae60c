import { randomUUID } from "node:crypto";
import { Job, Queue, type RedisQueueBackend } from "bullmq";
import { type ChainableCommander, Redis } from "ioredis";
import { type IChildService, startFloorRecordsWorkerProcess } from "../lib/child-services.js";
import { toolCallScript } from "../lib/scripts.js";
import type { IContender } from "./contender.js";
import type { IFloorRecordsRunData } from "./floor-records-context.js";
import { benchUserId, type IFinishedMessage, newRunState } from "./floor-records-state.js";
import {
  eventJson,
  eventsMaxLength,
  listingWindowMs,
  recordKeys,
  threadRetentionMs,
} from "./floor-records-store.js";
import { type IFloorRecordsOptions, startFloorRecordsWorkers } from "./floor-records-workers.js";

/**
 * "The floor with records" (issue 26): the floor's run (bullmq-floor.ts) on raw BullMQ and ioredis, with
 * no Tollgate code, writing the records Tollgate keeps for a run: a durable state (JSON of Tollgate's
 * size, saved with a version check at the start, the checkpoint, the tool results and the finish), the
 * run's event stream (queued, started, model replied, tool call dispatched and settled, step settled,
 * text deltas, finished), the listing indexes (active, tenant, user, unfinished, thread; at the finish
 * status and tool), the thread's run list and history, the usage counts per reply, the response
 * published. What those records cost on BullMQ alone, against which Tollgate's own code is measured.
 *
 * Like Tollgate: the run is created in one MULTI with its job (`Job#addJob` on the MULTI, as
 * FlowProducer adds a flow), the job carries the created state so the first activation reads nothing,
 * the checkpoint and the tool jobs are one fenced MULTI, the caller waits for the finish's publish (one
 * subscription, not QueueEvents), and the model's reply is streamed unless `streaming` is false. Unlike
 * Tollgate: the two MULTIs are made on BullMQ's adapter, as FlowProducer makes its own, so ioredis copies
 * BullMQ's 64 scripts into each (about 40 µs here; Tollgate sends its MULTIs' scripts by SHA from a
 * connection without them), and nothing is auto-pipelined (27.7 socket writes per run at 1 in flight,
 * Tollgate 22.3, `bench/trace-writes.ts`).
 *
 * A run of many steps (the long-run scenario) saves its whole state at each step, as for the one step
 * here; a run on an existing thread reads the thread's history into its state at its first activation,
 * as Tollgate's run does, and every run appends its own messages to its thread at the finish.
 *
 * Left out, as a design with these records need not have them for this bench: cancellation (its flag's
 * checks at the start and the resume), the check that the stored state is the one the job carries (a
 * hash of it), the start's slimming of the job's payload, the compaction of a finished run's stream,
 * queueing runs on a busy thread (the next run's wake), text deltas' retraction and allowance, the fast
 * tool's path (the run goes on in the same activation when the tool is done in time), idempotent
 * creation, retries and the jobs' retention options (the floor's defaults are kept).
 */
export async function floorWithRecords(
  options: IFloorRecordsOptions & { workerProcess?: boolean },
): Promise<IFloorWithRecords> {
  const connection = () => new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const keys = recordKeys(options.prefix);
  const runs = new Queue<IFloorRecordsRunData>("runs", { prefix: options.prefix, connection: connection() });
  const transactions = await (runs.getBackend() as unknown as RedisQueueBackend).client;
  const finishes = await listenForFinishes(connection(), keys.finishedChannel);
  let workers: { close(): Promise<void> } | undefined;
  let process: IChildService | undefined;
  if (options.workerProcess) process = await startFloorRecordsWorkerProcess(options);
  else workers = await startFloorRecordsWorkers(options);
  const ask = async (input: string, onThread?: string) => {
    const runId = `run_${randomUUID()}`;
    const threadId = onThread ?? `thread_${randomUUID()}`;
    const now = Date.now();
    const stateJson = JSON.stringify(newRunState(runId, threadId, input, now, onThread === undefined));
    const finished = finishes.wait(runId);
    const multi = transactions.multi();
    const raw = multi as unknown as ChainableCommander;
    multi.hset(keys.run(runId), { version: 1, state: stateJson });
    const queued = eventJson("run-queued", { threadId, userId: benchUserId }, now);
    raw.xadd(keys.events(runId), "MAXLEN", "~", eventsMaxLength, "*", "event", queued);
    raw.rpush(keys.threadRuns(threadId), runId);
    raw.pexpire(keys.threadRuns(threadId), threadRetentionMs);
    raw.pexpire(keys.threadMessages(threadId), threadRetentionMs);
    raw.zadd(keys.threadListing(threadId), now, runId);
    raw.pexpire(keys.threadListing(threadId), threadRetentionMs);
    raw.zadd(keys.activeRuns, now, runId);
    for (const listing of [keys.tenantListing, keys.userListing(benchUserId)]) {
      raw.zadd(listing, now, runId);
      raw.zremrangebyscore(listing, "-inf", `(${now - listingWindowMs}`);
      raw.pexpire(listing, listingWindowMs);
    }
    raw.zadd(keys.unfinishedListing, now, runId);
    await new Job(runs, "run", { runId, threadId, stateJson }, { jobId: runId }, runId).addJob(multi);
    const failed = ((await multi.exec()) ?? []).find(([error]) => error !== null);
    if (failed) throw new Error(`floor with records: creating ${runId} failed: ${String(failed[0])}`);
    const { response } = await finished;
    return response;
  };
  return {
    name: `floor with records${options.workerProcess ? ", worker process" : ""}`,
    childPids: process ? [process.pid] : [],
    ask,
    async run(tag, calls = 1) {
      const response = await ask(toolCallScript(tag, calls));
      if (response.text !== "done") throw new Error(`floor with records: unexpected answer ${response.text}`);
    },
    async close() {
      await workers?.close();
      await process?.stop();
      await runs.close();
      finishes.close();
    },
  };
}

/** The contender, and its runs of any input, on a thread of their own or on `threadId`'s. */
export interface IFloorWithRecords extends IContender {
  ask(input: string, threadId?: string): Promise<IFinishedMessage["response"]>;
}

/** One subscription to the finishes' channel; each run waits for its own id. */
async function listenForFinishes(subscriber: Redis, channel: string) {
  const waiting = new Map<string, (message: IFinishedMessage) => void>();
  subscriber.on("message", (_channel: string, text: string) => {
    const message = JSON.parse(text) as IFinishedMessage;
    waiting.get(message.runId)?.(message);
    waiting.delete(message.runId);
  });
  await subscriber.subscribe(channel);
  return {
    wait: (runId: string) => new Promise<IFinishedMessage>((resolve) => waiting.set(runId, resolve)),
    close: () => subscriber.disconnect(),
  };
}
