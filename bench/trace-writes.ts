/**
 * `npx tsx bench/trace-writes.ts [runs]`: socket writes per run, to Redis and to the model server, of the
 * raw-BullMQ floor, of the floor with Tollgate's records (bench/contenders/floor-with-records.ts) and of
 * Tollgate with an in-process worker (one process, 1 in flight, after a warm-up),
 * on a private redis-server. A write is a system call that wakes the other side; on this machine each
 * costs about 50 µs of CPU, the largest share of a run's. With `--show`, the commands of the last run's
 * Redis writes, one write per line (scripts by name, bench/lib/script-names.ts: BullMQ's by script,
 * Tollgate's by the export holding the Lua; others by SHA). For finding writes to merge; not part of
 * `npm run bench`.
 */
import net from "node:net";
import { bullmqFloor } from "./contenders/bullmq-floor.js";
import type { IContender } from "./contenders/contender.js";
import { floorWithRecords } from "./contenders/floor-with-records.js";
import { tollgateInProcess } from "./contenders/tollgate-in-process.js";
import { startModelServer } from "./lib/child-services.js";
import { startPrivateRedis } from "./lib/private-redis.js";
import { scriptNameOf, scriptNamesBySha } from "./lib/script-names.js";

const runs = Number(process.argv.find((arg) => /^\d+$/.test(arg)) ?? 200);
const show = process.argv.includes("--show");
const redis = await startPrivateRedis();
const model = await startModelServer();
const redisPort = Number(new URL(redis.url).port);
const scriptNames = show ? await scriptNamesBySha() : new Map<string, string>();

let counting = false;
const writesByPort = new Map<number, number>();
const lastRedisWrites: string[] = [];
const send = net.Socket.prototype.write;
// Counts each write a socket makes while counting is on; what it writes is passed through untouched.
net.Socket.prototype.write = function (this: net.Socket, chunk: unknown, ...rest: unknown[]) {
  if (counting && this.remotePort !== undefined) {
    writesByPort.set(this.remotePort, (writesByPort.get(this.remotePort) ?? 0) + 1);
    if (show && this.remotePort === redisPort) lastRedisWrites.push(commandsOf(chunk));
  }
  return (send as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
} as typeof net.Socket.prototype.write;

/** The command names in a RESP write (an EVALSHA with its script's name, or the start of its SHA). */
function commandsOf(chunk: unknown): string {
  const text = typeof chunk === "string" ? chunk : Buffer.isBuffer(chunk) ? chunk.toString("latin1") : "";
  const names = [...text.matchAll(/\*\d+\r\n\$\d+\r\n([A-Za-z]+)\r\n(?:\$\d+\r\n([0-9a-f]{40}))?/g)].map(
    ([, name, sha]) =>
      sha ? `${name!.toUpperCase()} ${scriptNameOf(name!, sha, scriptNames)}` : name!.toUpperCase(),
  );
  return names.join(", ");
}

const floor = await bullmqFloor({
  redisUrl: redis.url,
  modelUrl: model.url,
  prefix: "writes-floor",
  concurrency: 50,
});
const floorRecords = await floorWithRecords({
  redisUrl: redis.url,
  modelUrl: model.url,
  prefix: "writes-floor-records",
  concurrency: 50,
});
const tollgate = await tollgateInProcess({
  redisUrl: redis.url,
  modelUrl: model.url,
  prefix: "writes-tollgate",
  concurrency: 50,
});
try {
  for (const contender of [floor, floorRecords, tollgate] as IContender[]) {
    for (let index = 0; index < 20; index++) await contender.run(`warm-${index}`);
    writesByPort.clear();
    counting = true;
    for (let index = 0; index < runs; index++) {
      lastRedisWrites.length = 0;
      await contender.run(`traced-${index}`);
    }
    counting = false;
    const perRun = (port: number) => ((writesByPort.get(port) ?? 0) / runs).toFixed(2);
    console.log(
      `${contender.name}: ${perRun(redisPort)} writes per run to Redis, ${perRun(Number(new URL(model.url).port))} to the model`,
    );
    if (show) console.log(`  ${lastRedisWrites.join("\n  ")}`);
  }
} finally {
  await floor.close();
  await floorRecords.close();
  await tollgate.close();
  await model.stop();
  await redis.stop();
}
process.exit(0);
