import type { Redis } from "ioredis";
import { respBytes } from "./command-bytes.js";

/** Redis's own per-command call counts (INFO commandstats): includes the commands run inside Lua scripts. */
export async function serverCommandStats(redis: Redis): Promise<Record<string, number>> {
  const info = await redis.info("commandstats");
  const stats: Record<string, number> = {};
  for (const line of info.split("\n")) {
    const match = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (match) stats[match[1]!] = Number(match[2]);
  }
  return stats;
}

/** Redis's own time per command name in microseconds (INFO commandstats' usec; a script's time includes
 * the commands it runs, which are also counted under their own names). */
export async function serverCommandMicroseconds(redis: Redis): Promise<Record<string, number>> {
  const info = await redis.info("commandstats");
  const stats: Record<string, number> = {};
  for (const line of info.split("\n")) {
    const match = /^cmdstat_([^:]+):calls=\d+,usec=(\d+)/.exec(line.trim());
    if (match) stats[match[1]!] = Number(match[2]);
  }
  return stats;
}

/** CPU time (user + system, ms) the redis-server process used so far (INFO cpu). */
export async function redisCpuMs(redis: Redis): Promise<number> {
  const info = await redis.info("cpu");
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1] ?? Number.NaN);
  return (field("used_cpu_user") + field("used_cpu_sys")) * 1000;
}

/**
 * Bytes Redis has received from every client so far (INFO stats' total_net_input_bytes): what every
 * contender sends it, their worker processes' too. Counted as Redis reads a query, so this INFO's own
 * bytes are in its answer: a difference of two counts holds the second INFO (`infoStatsBytes`).
 */
export async function redisInputBytes(redis: Redis): Promise<number> {
  const info = await redis.info("stats");
  return Number(/^total_net_input_bytes:(\d+)/m.exec(info)?.[1] ?? Number.NaN);
}

/**
 * Waits until Redis has run no command but this wait's own INFO for `quietMs` (or `deadlineMs` passed):
 * what a run leaves behind once its caller has the answer (BullMQ completing the run job, a worker's next
 * fetch) then falls on that run, not on the next one measured. Returns the INFO reads it sent.
 */
export async function waitForQuietRedis(redis: Redis, quietMs = 10, deadlineMs = 2_000): Promise<number> {
  const commandsProcessed = async () => {
    const info = await redis.info("stats");
    return Number(/^total_commands_processed:(\d+)/m.exec(info)?.[1] ?? Number.NaN);
  };
  const deadline = Date.now() + deadlineMs;
  let reads = 1;
  let last = await commandsProcessed();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    const now = await commandsProcessed();
    reads++;
    if (now - last <= 1 || Date.now() > deadline) return reads;
    last = now;
  }
}

/** What one `INFO <section>` sends Redis, in RESP, for taking the bench's own reads out of a count. */
export function infoBytes(section: string): number {
  return respBytes("info", [Buffer.byteLength(section)]);
}

export async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info("memory");
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? Number.NaN);
}

/** MEMORY USAGE of a key, every element counted (SAMPLES 0); 0 when the key does not exist. */
export async function keyBytes(redis: Redis, key: string): Promise<number> {
  return Number((await redis.memory("USAGE", key, "SAMPLES", "0")) ?? 0);
}

export async function redisVersion(redis: Redis): Promise<string> {
  const info = await redis.info("server");
  return /^redis_version:(\S+)/m.exec(info)?.[1] ?? "unknown";
}
