/**
 * Where a parked run's Redis bytes go, key by key: `npx tsx bench/parked-breakdown.ts [runs]` parks
 * runs (2,000 by default) on one approval each, as the parked-memory scenario does, in a private
 * redis-server, then groups every key of the deployment by its shape (ids replaced by <id>) and prints
 * MEMORY USAGE per group ÷ parked runs, with each group's encoding, beside the INFO used_memory delta.
 * A diagnostic for comparing builds (run it in a worktree of each), not a scenario of `npm run bench`.
 */
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { tollgateInProcess } from "./contenders/tollgate-in-process.js";
import { withInFlight } from "./lib/alternate.js";
import { startModelServer } from "./lib/child-services.js";
import { startPrivateRedis } from "./lib/private-redis.js";
import { keyBytes, usedMemory } from "./lib/redis-stats.js";

const runs = Number(process.argv[2] ?? 2_000);
const prefix = "tg-park";

interface IGroup {
  keys: number;
  bytes: number;
  elements: number;
  encodings: Set<string>;
}

const redisServer = await startPrivateRedis();
const model = await startModelServer();
const redis = redisServer.redis;
const tollgate = await tollgateInProcess({
  redisUrl: redisServer.url,
  modelUrl: model.url,
  prefix,
  concurrency: 100,
});
const approvalsQueue = new Queue("approvals", { prefix, connection: new Redis(redisServer.url) });
try {
  await tollgate.client.approvals.list({ runId: "none" });
  const before = await groups();
  const memoryBefore = await usedMemory(redis);
  const infoBefore = await memoryInfo();
  await withInFlight(runs, 200, async (index) => {
    await tollgate.client.run({
      input: JSON.stringify({
        script: [{ calls: [{ name: "approve_me", input: { amount: index } }] }, { text: "done" }],
      }),
      userContext: { userId: `user-${index % 10}` },
    });
  });
  // A run the scripted model failed (it closes a connection now and then on a loaded machine) never parks:
  // wait for the others, and count only the parked ones.
  const runsQueue = new Queue("runs", { prefix, connection: new Redis(redisServer.url) });
  const deadline = Date.now() + 600_000;
  let parked = 0;
  for (;;) {
    parked = await approvalsQueue.getDelayedCount();
    if (parked + (await runsQueue.getCompletedCount()) >= runs) break;
    if (Date.now() > deadline) throw new Error("approvals not parked in 10 minutes");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await runsQueue.close();
  if (parked < runs)
    console.log(`${runs - parked} runs failed before parking (the scripted model closed a connection)`);
  const perRun = ((await usedMemory(redis)) - memoryBefore) / runs;
  const infoAfter = await memoryInfo();
  const after = await groups();
  const rows: Array<[string, number, number, number, string]> = [];
  let total = 0;
  for (const [shape, group] of after) {
    const old = before.get(shape);
    const bytes = (group.bytes - (old?.bytes ?? 0)) / runs;
    const keys = group.keys - (old?.keys ?? 0);
    const elements = (group.elements - (old?.elements ?? 0)) / runs;
    if (Math.abs(bytes) < 0.5 && keys === 0) continue;
    total += bytes;
    rows.push([shape, keys, bytes, elements, [...group.encodings].join(",")]);
  }
  rows.sort((left, right) => right[2] - left[2]);
  console.log(
    `${runs} parked runs; INFO used_memory delta per run ${perRun.toFixed(0)}; MEMORY USAGE sum per run ${total.toFixed(0)}`,
  );
  console.log("shape | keys added | bytes per run | elements per run | encoding");
  for (const [shape, keys, bytes, elements, encoding] of rows) {
    console.log(`${shape} | ${keys} | ${bytes.toFixed(1)} | ${elements.toFixed(2)} | ${encoding}`);
  }
  console.log("INFO per run (after − before) ÷ runs:");
  for (const [name, value] of Object.entries(infoAfter)) {
    const delta = (value - (infoBefore[name] ?? 0)) / runs;
    if (delta !== 0) console.log(`  ${name} ${delta.toFixed(2)}`);
  }
  if (process.env.SHOW_SAMPLE) await showSample();
} finally {
  await tollgate.close();
  await approvalsQueue.close();
  await model.stop();
  await redisServer.stop();
}
process.exit(0);

/** INFO memory and keyspace as numbers (the fields that say where used_memory goes, keys and expiring keys). */
async function memoryInfo(): Promise<Record<string, number>> {
  const text = `${await redis.info("memory")}\n${await redis.info("keyspace")}`;
  const fields: Record<string, number> = {};
  for (const match of text.matchAll(/^(used_memory\w*|mem_\w+|number_of_cached_scripts):(\d+)\r?$/gm)) {
    fields[match[1]!] = Number(match[2]);
  }
  for (const match of text.matchAll(/^db0:keys=(\d+),expires=(\d+)/gm)) {
    fields.keys = Number(match[1]);
    fields.expires = Number(match[2]);
  }
  return fields;
}

function shapeOf(key: string): string {
  return key
    .split(":")
    .map((part) =>
      /^[0-9a-f]{8}-[0-9a-f]{4}-/.test(part) || /\d/.test(part) || part.length > 20 ? "<id>" : part,
    )
    .join(":");
}

async function groups(): Promise<Map<string, IGroup>> {
  const result = new Map<string, IGroup>();
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "COUNT", 1000);
    cursor = next;
    for (const key of keys) {
      const shape = shapeOf(key);
      const group = result.get(shape) ?? { keys: 0, bytes: 0, elements: 0, encodings: new Set<string>() };
      group.keys++;
      group.bytes += await keyBytes(redis, key);
      group.elements += await elementCount(key);
      group.encodings.add(String(await redis.object("ENCODING", key)));
      result.set(shape, group);
    }
  } while (cursor !== "0");
  return result;
}

async function elementCount(key: string): Promise<number> {
  const type = await redis.type(key);
  if (type === "zset") return redis.zcard(key);
  if (type === "hash") return redis.hlen(key);
  if (type === "set") return redis.scard(key);
  if (type === "list") return redis.llen(key);
  if (type === "stream") return redis.xlen(key);
  return 1;
}

/** One parked run's keys (those whose name holds its run id or its approval id), field by field. */
async function showSample(): Promise<void> {
  const [approvalId] = await redis.zrange(`${prefix}:approval-index:pending`, "0", "0");
  const runId = String(approvalId).replace(/-s\d+-c\d+-approval$/, "");
  console.log(`sample approval ${approvalId}, run ${runId}`);
  let cursor = "0";
  const mine: string[] = [];
  do {
    const [next, keys] = await redis.scan(cursor, "COUNT", 1000);
    cursor = next;
    mine.push(...keys.filter((key) => key.includes(runId) || key.includes(String(approvalId))));
  } while (cursor !== "0");
  for (const key of mine.sort()) {
    const type = await redis.type(key);
    console.log(
      `\n## ${key} (${type}, ${await redis.object("ENCODING", key)}, ${await keyBytes(redis, key)} bytes)`,
    );
    if (type === "hash") {
      for (const [field, value] of Object.entries(await redis.hgetall(key))) {
        console.log(`  ${field} [${value.length}] ${value.slice(0, 3000)}`);
      }
    } else if (type === "stream") {
      for (const [id, fields] of await redis.xrange(key, "-", "+"))
        console.log(`  ${id} ${JSON.stringify(fields).slice(0, 3000)}`);
    } else if (type === "zset") {
      console.log(`  ${JSON.stringify(await redis.zrange(key, "0", "-1", "WITHSCORES"))}`);
    } else if (type === "list") {
      console.log(`  ${JSON.stringify(await redis.lrange(key, 0, -1))}`);
    } else if (type === "string") {
      console.log(`  ${await redis.get(key)}`);
    }
  }
  for (const shared of ["runs:events", "approvals:events", "approval-events"]) {
    const entries = await redis.xrevrange(`${prefix}:${shared}`, "+", "-", "COUNT", 4);
    console.log(`\n## ${prefix}:${shared} (last 4)`);
    for (const [id, fields] of entries) console.log(`  ${id} ${JSON.stringify(fields).slice(0, 1500)}`);
  }
  for (const index of await scanAll(`${prefix}:run-list:*`)) {
    console.log(`${index}: ${JSON.stringify(await redis.zrange(index, "0", "1", "WITHSCORES"))}`);
  }
  for (const index of await scanAll(`${prefix}:approval-index:*`)) {
    console.log(`${index}: ${JSON.stringify(await redis.zrange(index, "0", "1", "WITHSCORES"))}`);
  }
}

async function scanAll(pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== "0");
  return found.filter((key) => !key.includes(":thread:")).slice(0, 8);
}
