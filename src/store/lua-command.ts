import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

export interface ILuaCommand {
  /**
   * How many of the arguments are keys (they come first); `dynamic`: the first argument says, for a
   * script whose keys vary in number (a finished run joins one listing index per tool it called).
   */
  numberOfKeys: number | "dynamic";
  lua: string;
}

/**
 * Adds `name` to the connection as a method that runs `lua` by its SHA (EVALSHA), sending the script
 * itself (EVAL, which also caches it) only when Redis does not know it: after a restart, a failover or
 * SCRIPT FLUSH. It goes through the connection's auto-pipelining like any command.
 *
 * Why not ioredis `defineCommand`: every pipeline ioredis makes copies each defined command onto itself,
 * and auto-pipelining makes a pipeline per turn of the event loop. With Tollgate's 23 scripts a pipeline
 * cost 16.7 µs instead of 2.1 µs, several times per run.
 */
export function defineLuaCommand(redis: Redis, name: string, command: ILuaCommand): void {
  const sha = createHash("sha1").update(command.lua).digest("hex");
  const run = async (...given: Array<string | number | Buffer>): Promise<unknown> => {
    const [numberOfKeys, args] =
      command.numberOfKeys === "dynamic" ? [Number(given[0]), given.slice(1)] : [command.numberOfKeys, given];
    try {
      return await redis.evalsha(sha, numberOfKeys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
      return redis.eval(command.lua, numberOfKeys, ...args);
    }
  };
  Object.defineProperty(redis, name, { value: run, configurable: true, writable: true });
}
