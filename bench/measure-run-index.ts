/**
 * The run listing's cost (issue 25): creates N queued runs through the real create path (5 tenants,
 * 1,000 users, each run on a thread of its own), then prints the Redis bytes of every listing index per
 * run and the latency of a few listings (20 each). `npx tsx bench/measure-run-index.ts 20000` against
 * the Redis at 127.0.0.1:6379; its keys are deleted after.
 */

import { Redis } from "ioredis";
import { GatewayClient } from "../src/producer/index.js";
import { testGateway } from "../test/fixtures/test-gateway.js";

const prefix = `tg-runs-measure-${Date.now()}`;
const n = Number(process.argv[2] ?? 10000);
const client = new GatewayClient({
  gateway: testGateway,
  runtime: { redisUrl: "redis://127.0.0.1:6379", prefix },
});
const redis = new Redis("redis://127.0.0.1:6379");
for (let start = 0; start < n; start += 200) {
  await Promise.all(
    Array.from({ length: Math.min(200, n - start) }, (_, o) =>
      client.run({
        input: `Refund order ${start + o}`,
        userContext: { userId: `user-${(start + o) % 1000}` },
        tenant: `tenant-${(start + o) % 5}`,
        createdBy: "svc-bench",
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
console.log(`runs ${n}, listing index bytes per run ${(indexBytes / n).toFixed(0)}`);
const time = async (label: string, query: object) => {
  const samples: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    await client.listRuns(query);
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  console.log(`${label}: p50 ${samples[10]!.toFixed(1)} ms, p95 ${samples[18]!.toFixed(1)} ms`);
};
await time("tenant, first page (50)", { tenant: "tenant-1" });
await time("tenant + user (first page)", { tenant: "tenant-1", userId: "user-11" });
const deep = await client.listRuns({ tenant: "tenant-1", limit: 500 });
await time("tenant, page after 500", { tenant: "tenant-1", cursor: deep.nextCursor });
await time("status queued (unfinished index)", { tenant: "tenant-1", status: "queued" });
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
