import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineGateway } from "../../../src/gateway/index.js";
import { CancelBus } from "../../../src/runtime/cancel-bus.js";
import { createRuntime, type ITollgateRuntime } from "../../../src/runtime/runtime.js";
import { testRedisOptions } from "../../helpers/redis-url.js";
import { deletePrefix, uniquePrefix } from "../../helpers/test-prefix.js";

/**
 * What a cancel registration hands out (issue 26: one controller for a run's cancellation and whatever
 * else may stop the same work, instead of signals linked to others): `follow` aborts it with the followed
 * signal's reason, `abort` aborts it alone, and `release` detaches it from everything it follows.
 */
describe("a cancel registration", () => {
  let runtime: ITollgateRuntime;
  let cancelBus: CancelBus;
  const prefix = uniquePrefix("cancel-registration");
  beforeAll(async () => {
    runtime = createRuntime({
      gateway: defineGateway({ name: "cancel-registration", tools: [] }),
      options: { ...testRedisOptions, prefix },
      role: "worker",
    });
    await runtime.ready();
    cancelBus = await CancelBus.start(runtime);
  });
  afterAll(async () => {
    await cancelBus.close();
    await runtime.close();
    await deletePrefix(prefix);
  });

  it("is aborted by a followed signal, with its reason; at once when it was aborted already", () => {
    const registration = cancelBus.register("run-follow");
    const source = new AbortController();
    registration.follow(source.signal);
    expect(registration.signal.aborted).toBe(false);
    source.abort(new Error("job cancelled"));
    expect(registration.signal.reason).toEqual(new Error("job cancelled"));
    registration.release();

    const late = cancelBus.register("run-follow-late");
    late.follow(AbortSignal.abort("already"));
    expect(late.signal.reason).toBe("already");
    late.release();
  });

  it("abort stops its own signal alone: another registration of the run goes on", () => {
    const first = cancelBus.register("run-abort");
    const second = cancelBus.register("run-abort");
    first.abort("refused");
    expect(first.signal.reason).toBe("refused");
    expect(second.signal.aborted).toBe(false);
    first.release();
    second.release();
  });

  it("once released, none of the signals it followed aborts it", () => {
    const registration = cancelBus.register("run-release");
    const sources = [new AbortController(), new AbortController()];
    for (const source of sources) registration.follow(source.signal);
    registration.release();
    for (const source of sources) source.abort("after the work");
    expect(registration.signal.aborted).toBe(false);
  });
});
