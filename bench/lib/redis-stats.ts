import type { Redis } from "ioredis";

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
