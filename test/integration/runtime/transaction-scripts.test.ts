import type { RedisQueueBackend } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuntime, type ITollgateRuntime } from "../../../src/runtime/runtime.js";
import {
  forgetLoadedScripts,
  loadScriptsOnce,
  queueClientOf,
  withScriptsBySha,
} from "../../../src/runtime/transaction-scripts.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { testRedisOptions } from "../../helpers/redis-url.js";
import { deletePrefix, uniquePrefix } from "../../helpers/test-prefix.js";

/**
 * Issue 26 (main-thread CPU): a run's creation and checkpoint wait on nothing for their scripts when
 * nothing is to be waited for: the queues' connection once it was ready, and scripts the socket holds.
 * Each such wait cost a promise, and for a creation a timer bounding it.
 */
describe("a transaction's scripts", () => {
  let runtime: ITollgateRuntime;
  const prefix = uniquePrefix("transaction-scripts");
  beforeAll(async () => {
    runtime = createRuntime({
      gateway: testGateway,
      options: { ...testRedisOptions, prefix },
      role: "worker",
    });
    await runtime.ready();
  });
  afterAll(async () => {
    await runtime.close();
    await deletePrefix(prefix);
  });

  it("gives the queues' connection itself once it was ready", async () => {
    const backend = runtime.queues.runs.getBackend() as unknown as RedisQueueBackend;
    const first = queueClientOf(backend);
    const client = await first;
    expect(client).toBe(await backend.client);
    expect(queueClientOf(backend)).toBe(client);
  });

  it("loads a script the socket was not seen to hold, then answers at once, and loads it again when forgotten", async () => {
    const backend = runtime.queues.runs.getBackend() as unknown as RedisQueueBackend;
    const definitions = await backend.client;
    const multi = runtime.redis.multi();
    const transaction = withScriptsBySha(definitions, multi);
    const name = Object.keys((definitions as unknown as { scriptsSet: object }).scriptsSet)[0] ?? "";
    transaction.runCommand(name, []);
    multi.discard();
    forgetLoadedScripts(runtime.redis);
    const loading = loadScriptsOnce(runtime.redis, transaction.scripts);
    expect(loading).toBeInstanceOf(Promise);
    await loading;
    const sha = [...transaction.scripts.values()][0]?.sha ?? "";
    expect(await runtime.redis.script("EXISTS", sha)).toEqual([1]);
    expect(loadScriptsOnce(runtime.redis, transaction.scripts)).toBeUndefined();
    forgetLoadedScripts(runtime.redis);
    expect(loadScriptsOnce(runtime.redis, transaction.scripts)).toBeInstanceOf(Promise);
  });
});
