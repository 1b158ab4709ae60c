import { Redis } from "ioredis";

/** Counts every command Tollgate's ioredis clients send in this process (pipelined ones included). */
export function countClientCommands(): { read(): Record<string, number>; reset(): void } {
  const counts: Record<string, number> = {};
  const prototype = Redis.prototype as unknown as { sendCommand(command: { name: string }): unknown };
  const original = prototype.sendCommand;
  prototype.sendCommand = function (this: unknown, command: { name: string }) {
    counts[command.name] = (counts[command.name] ?? 0) + 1;
    return original.call(this, command);
  };
  return {
    read: () => ({ ...counts }),
    reset: () => {
      for (const key of Object.keys(counts)) delete counts[key];
    },
  };
}

/** Redis's own per-command call counts (INFO commandstats): includes commands run inside Lua scripts. */
export async function serverCommandStats(redis: Redis): Promise<Record<string, number>> {
  const info = await redis.info("commandstats");
  const stats: Record<string, number> = {};
  for (const line of info.split("\n")) {
    const match = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (match) stats[match[1]!] = Number(match[2]);
  }
  return stats;
}

export function difference(
  after: Record<string, number>,
  before: Record<string, number>,
): Record<string, number> {
  const result: Record<string, number> = {};
  for (const [name, value] of Object.entries(after)) {
    const delta = value - (before[name] ?? 0);
    if (delta > 0) result[name] = delta;
  }
  return result;
}

export function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((sum, value) => sum + value, 0);
}
