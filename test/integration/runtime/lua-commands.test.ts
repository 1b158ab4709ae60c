import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuntime, type ITollgateRuntime } from "../../../src/runtime/runtime.js";
import { defineLuaCommand } from "../../../src/store/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { testRedisOptions } from "../../helpers/redis-url.js";
import { deletePrefix, uniquePrefix } from "../../helpers/test-prefix.js";

/**
 * Issue 14: Tollgate's scripts are methods of their own, not ioredis `defineCommand`s, which every
 * pipeline (one per turn of the event loop with auto-pipelining) copied onto itself: 16.7 µs a pipeline
 * with 23 scripts, 2.1 µs with none.
 */
describe("Lua commands", () => {
  let runtime: ITollgateRuntime;
  const prefix = uniquePrefix("lua-commands");
  beforeAll(async () => {
    runtime = createRuntime({
      gateway: testGateway,
      options: { ...testRedisOptions, prefix },
      role: "client",
    });
    await runtime.ready();
  });
  afterAll(async () => {
    await runtime.close();
    // The queues' meta keys and the test's counter: nothing of this test stays in Redis.
    await deletePrefix(prefix);
  });

  it("the connection carries no ioredis-defined command for a pipeline to copy", () => {
    const scriptsSet =
      (runtime.redis as unknown as { scriptsSet?: Record<string, unknown> }).scriptsSet ?? {};
    expect(Object.keys(scriptsSet)).toEqual([]);
    expect(typeof runtime.redis.tgSaveRun).toBe("function");
  });

  it("a script Redis does not know yet runs (sent whole when Redis answers NOSCRIPT), and runs again", async () => {
    // A text of its own: no other test, nor an earlier run, loaded it.
    const lua = `-- ${randomUUID()}\nreturn redis.call('INCR', KEYS[1]) + tonumber(ARGV[1])`;
    defineLuaCommand(runtime.redis, "tgTestIncrement", { numberOfKeys: 1, lua });
    const increment = (runtime.redis as unknown as Record<string, (...args: string[]) => Promise<number>>)
      .tgTestIncrement!;
    const key = `${runtime.options.prefix}:lua-commands:counter`;
    expect(await increment(key, "10")).toBe(11);
    expect(await increment(key, "10")).toBe(12);
    await runtime.redis.del(key);
  });

  it("an error of the script itself reaches the caller as it is", async () => {
    defineLuaCommand(runtime.redis, "tgTestFails", {
      numberOfKeys: 0,
      lua: `-- ${randomUUID()}\nreturn redis.error_reply('TG_TEST refused')`,
    });
    const fails = (runtime.redis as unknown as Record<string, () => Promise<unknown>>).tgTestFails!;
    await expect(fails()).rejects.toThrow("TG_TEST refused");
  });
});
