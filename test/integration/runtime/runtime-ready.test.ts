import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TollgateError } from "../../../src/errors/index.js";
import { createRuntime, type ITollgateRuntime } from "../../../src/runtime/runtime.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { testRedisOptions } from "../../helpers/redis-url.js";
import { uniquePrefix } from "../../helpers/test-prefix.js";

// runtime.ready() is awaited by every ask and every API request. Waiting must not cost a `ready`
// listener per caller on the shared connection: 48 asks at once on a connecting cluster client
// warned "MaxListenersExceededWarning: 11 ready listeners added" (npm run bench:cluster).
describe("runtime.ready() with many callers waiting", () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  let runtime: ITollgateRuntime | undefined;
  beforeEach(() => {
    warnings.length = 0;
    process.on("warning", onWarning);
  });
  afterEach(async () => {
    process.off("warning", onWarning);
    await runtime?.close();
    runtime = undefined;
  });

  it("shares one ready listener among the callers while the connection comes up", async () => {
    runtime = createRuntime({
      gateway: testGateway,
      options: { ...testRedisOptions, prefix: uniquePrefix("ready") },
      role: "client",
    });
    const redis = runtime.redis;
    expect(redis.status).not.toBe("ready");
    const before = redis.listenerCount("ready");
    const waiting = Array.from({ length: 50 }, () => runtime!.ready());
    expect(redis.listenerCount("ready")).toBe(before + 1);
    await Promise.all(waiting);
    expect(redis.listenerCount("ready")).toBe(before);
    expect(warnings.filter((warning) => warning.name === "MaxListenersExceededWarning")).toEqual([]);
  });

  it("gives each caller its deadline (TG_REDIS_UNAVAILABLE) without a listener of its own", async () => {
    // Nothing listens on port 1: the connection never becomes ready.
    runtime = createRuntime({
      gateway: testGateway,
      options: { redisUrl: "redis://127.0.0.1:1", prefix: uniquePrefix("ready-down"), connectTimeoutMs: 200 },
      role: "client",
    });
    const redis = runtime.redis;
    const before = redis.listenerCount("ready");
    const waiting = Array.from({ length: 20 }, () =>
      runtime!.ready().then(
        () => undefined,
        (error: unknown) => error,
      ),
    );
    expect(redis.listenerCount("ready")).toBe(before + 1);
    const outcomes = await Promise.all(waiting);
    for (const outcome of outcomes) {
      expect(outcome).toBeInstanceOf(TollgateError);
      expect((outcome as TollgateError).code).toBe("TG_REDIS_UNAVAILABLE");
    }
    expect(warnings.filter((warning) => warning.name === "MaxListenersExceededWarning")).toEqual([]);
  });
});
