/**
 * `npx tsx bench/park-path.ts [runs]`: how long a run takes to park on a call that needs a human, at 1
 * in flight, Tollgate with an in-process worker on a private redis-server and the scripted model. Per
 * run: from `run()` (the run enqueued) to BullMQ's `waiting-children` event of its run job (read with
 * QueueEvents): the model's call, the checkpoint, the parking (the approval record and its delayed job)
 * and the run job's move to waiting-children, when the worker's slot is free again. Then the run is
 * cancelled, outside the clock. A diagnostic for issue 26 (the parking's round trips), not part of
 * `npm run bench`; run it on two builds alternately to compare them.
 */
import { performance } from "node:perf_hooks";
import { QueueEvents } from "bullmq";
import { tollgateInProcess } from "./contenders/tollgate-in-process.js";
import { startModelServer } from "./lib/child-services.js";
import { startPrivateRedis } from "./lib/private-redis.js";
import { countRedisRoundTrips } from "./lib/redis-round-trips.js";

const runs = Number(process.argv[2] ?? "300");
const redis = await startPrivateRedis();
const model = await startModelServer();
const prefix = "park-path";
const roundTrips = countRedisRoundTrips(redis.port);
const contender = await tollgateInProcess({
  redisUrl: redis.url,
  modelUrl: model.url,
  prefix,
  concurrency: 1,
});
const events = new QueueEvents("runs", { connection: { url: redis.url }, prefix });
await events.waitUntilReady();
/** When each run job's `waiting-children` was heard (and the round trips made by then), or who waits. */
const heard = new Map<string, IHeard>();
const listeners = new Map<string, (at: IHeard) => void>();
interface IHeard {
  at: number;
  roundTrips: number;
}
events.on("waiting-children", ({ jobId }) => {
  const at = { at: performance.now(), roundTrips: roundTrips.read() };
  const listener = listeners.get(jobId);
  if (listener) listener(at);
  else heard.set(jobId, at);
});

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;
};

try {
  for (let index = 0; index < 100; index++) await park(index);
  const parked: IHeard[] = [];
  for (let index = 0; index < runs; index++) parked.push(await park(1_000 + index));
  const times = parked.map((run) => run.at);
  console.log(
    `${runs} runs parked at 1 in flight: run() → run job waiting for its children, ` +
      `p50 ${quantile(times, 0.5).toFixed(3)} ms, p99 ${quantile(times, 0.99).toFixed(3)} ms; ` +
      `round trips to Redis by then (this process's sockets, QueueEvents' reads too) p50 ` +
      `${quantile(
        parked.map((run) => run.roundTrips),
        0.5,
      )}`,
  );
} finally {
  await events.close();
  await contender.close();
  await model.stop();
  await redis.stop();
}

async function park(amount: number): Promise<IHeard> {
  const client = contender.client;
  const started = performance.now();
  const writesBefore = roundTrips.read();
  const { runId } = await client.run({
    input: JSON.stringify({
      script: [{ calls: [{ name: "approve_me", input: { amount } }] }, { text: "done" }],
    }),
    userContext: { userId: "bench" },
  });
  const parkedAt =
    heard.get(runId) ?? (await new Promise<IHeard>((resolve) => listeners.set(runId, resolve)));
  heard.delete(runId);
  listeners.delete(runId);
  await client.cancel(runId);
  await client.wait(runId);
  return { at: parkedAt.at - started, roundTrips: parkedAt.roundTrips - writesBefore };
}
