/**
 * The run listing's cost (issue 25): creates N queued runs through the real create path (5 tenants,
 * 1,000 users, two creators, each run on a thread of its own), then prints the Redis bytes of every
 * listing index per run (and Redis's whole memory per run, for scale) and the p50/p99 of a few listings,
 * filtered and not (SAMPLES requests each, one at a time). `npx tsx bench/measure-run-index.ts 100000 200`
 * against the Redis at 127.0.0.1:6379; its keys are deleted after.
 */

import { Redis } from "ioredis";
import { GatewayClient } from "../src/producer/index.js";
import { testGateway } from "../test/fixtures/test-gateway.js";

const prefix = `tg-runs-measure-${Date.now()}`;
const n = Number(process.argv[2] ?? 10000);
const sampleCount = Number(process.argv[3] ?? 20);
const client = new GatewayClient({
  gateway: testGateway,
  runtime: { redisUrl: "redis://127.0.0.1:6379", prefix },
});
const redis = new Redis("redis://127.0.0.1:6379");
const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await redis.info("memory"))![1]);
const memoryBefore = await usedMemory();
const createStarted = performance.now();
for (let start = 0; start < n; start += 200) {
  await Promise.all(
    Array.from({ length: Math.min(200, n - start) }, (_, o) =>
      client.run({
        input: `Refund order ${start + o}`,
        userContext: { userId: `user-${(start + o) % 1000}` },
        tenant: `tenant-${(start + o) % 5}`,
        createdBy: (start + o) % 2 === 0 ? "svc-even" : "svc-odd",
      }),
    ),
  );
}
let indexBytes = 0;
let cursor = "0";
do {
  const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:run-list:*`, "COUNT", 1000);
  cursor = next;
  for (const key of keys) indexBytes += Number(await redis.memory("USAGE", key, "SAMPLES", 0));
} while (cursor !== "0");
const createSeconds = (performance.now() - createStarted) / 1000;
const memoryAfter = await usedMemory();
console.log(
  `runs ${n} created in ${createSeconds.toFixed(0)} s; listing index bytes per run ${(indexBytes / n).toFixed(0)}; ` +
    `Redis used_memory per run (state, events, thread, job and indexes) ${((memoryAfter - memoryBefore) / n).toFixed(0)}`,
);
const at = (sorted: number[], quantile: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))]!;
const time = async (label: string, query: object) => {
  const samples: number[] = [];
  let listed = 0;
  for (let i = 0; i < sampleCount; i++) {
    const t = performance.now();
    listed = (await client.listRuns(query)).runs.length;
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  console.log(
    `${label}: ${listed} runs, p50 ${at(samples, 0.5).toFixed(1)} ms, p99 ${at(samples, 0.99).toFixed(1)} ms`,
  );
};
await time("tenant, first page (50)", { tenant: "tenant-1" });
await time("tenant + user, first page", { tenant: "tenant-1", userId: "user-11" });
await time("tenant + creator, first page", { tenant: "tenant-1", createdBy: "svc-odd" });
const deep = await client.listRuns({ tenant: "tenant-1", limit: 500 });
await time("tenant, page after 500", { tenant: "tenant-1", cursor: deep.nextCursor });
const middle = await client.listRuns({ tenant: "tenant-1", userId: "user-11", limit: 50 });
await time("tenant + user, the page after 50", {
  tenant: "tenant-1",
  userId: "user-11",
  cursor: middle.nextCursor,
});
await time("tenant + status queued (unfinished index)", { tenant: "tenant-1", status: "queued" });
const newest = (await client.listRuns({ tenant: "tenant-1", limit: 1 })).runs[0]!.createdAt;
await time("tenant + user + since (a window)", {
  tenant: "tenant-1",
  userId: "user-11",
  since: newest - 60_000,
});
await time("every tenant, first page (50)", {});
let c = "0";
const del: string[] = [];
do {
  const [next, keys] = await redis.scan(c, "MATCH", `${prefix}*`, "COUNT", 1000);
  c = next;
  del.push(...keys);
} while (c !== "0");
for (let i = 0; i < del.length; i += 500) await redis.del(...del.slice(i, i + 500));
await client.close();
redis.disconnect();
