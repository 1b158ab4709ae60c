import { Redis } from "ioredis";

/**
 * Counts every command the ioredis clients of this process send (pipelined ones included), without
 * MONITOR: BullMQ and Tollgate share the one ioredis, whose sendCommand every command goes through.
 * Installed once; commands of child processes are not seen (Redis's commandstats counts those).
 */
export function countClientCommands(): { read(): Record<string, number> } {
  const counts: Record<string, number> = {};
  const prototype = Redis.prototype as unknown as {
    sendCommand(command: { name: string }, ...rest: unknown[]): unknown;
  };
  const original = prototype.sendCommand;
  // Every argument passed on: a pipeline (auto-pipelining's too) gives its buffer as the second, and
  // without it each of its commands was written to the socket alone.
  prototype.sendCommand = function (this: unknown, command: { name: string }, ...rest: unknown[]) {
    counts[command.name] = (counts[command.name] ?? 0) + 1;
    return original.call(this, command, ...rest);
  };
  return { read: () => ({ ...counts }) };
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

/** Script calls among counted commands: EVALSHA/EVAL (BullMQ's and Tollgate's) and FCALL. */
export function luaCalls(counts: Record<string, number>): number {
  return (counts.evalsha ?? 0) + (counts.eval ?? 0) + (counts.fcall ?? 0) + (counts.evalsha_ro ?? 0);
}
