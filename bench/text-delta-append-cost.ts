/**
 * `npx tsx bench/text-delta-append-cost.ts`: process CPU per text-delta write (`TextDeltaLog.append`, an
 * 80-character piece, 50 runs) on a private redis-server, through an auto-pipelining connection as the
 * worker's, when each write leaves alone in its event-loop turn (per-run timers at 50 runs in flight)
 * and when ten leave in one turn (one socket write; the flush clock's case). Alternating, three each.
 * A diagnostic, not part of `npm run bench`.
 */
import { TextDeltaLog } from "../src/store/index.js";
import { createRedis } from "../src/store/redis-client.js";
import { startPrivateRedis } from "./lib/private-redis.js";

const redis = await startPrivateRedis();
const client = createRedis({ kind: "single", url: redis.url }, "worker", { enableAutoPipelining: true });
const keys = {
  run: (id: string) => `m:run:{${id}}`,
  runEvents: (id: string) => `m:run:{${id}}:events`,
} as never;
const log = new TextDeltaLog(client, keys, { maxPerRun: 1e9, now: Date.now });
const runs = 50;
for (let r = 0; r < runs; r++) await client.hset(`m:run:{r${r}}`, "rev", "1", "state", "{}");
const text = "x".repeat(80);
async function round(perTick: number, total: number) {
  const before = process.cpuUsage();
  let issued = 0;
  while (issued < total) {
    const batch: Promise<unknown>[] = [];
    for (let i = 0; i < perTick; i++, issued++) batch.push(log.append(`r${issued % runs}`, 1, "a", text));
    await new Promise((resolve) => setTimeout(resolve, 0));
    await Promise.all(batch);
  }
  const cpu = process.cpuUsage(before);
  return (cpu.user + cpu.system) / total;
}
for (const perTick of [1, 10, 1, 10, 1, 10])
  console.log(`${perTick} per tick: ${(await round(perTick, 20000)).toFixed(1)} µs CPU per append`);
client.disconnect();
await redis.stop();
process.exit(0);
