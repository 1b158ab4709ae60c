import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineGateway } from "../../../src/gateway/index.js";
import { FinishedRuns } from "../../../src/runtime/finished-runs.js";
import { createRuntime, type ITollgateRuntime } from "../../../src/runtime/runtime.js";
import { dataNodes } from "../../../src/store/index.js";
import { testRedisOptions } from "../../helpers/redis-url.js";
import { deletePrefix, uniquePrefix } from "../../helpers/test-prefix.js";

/**
 * How a client hears that runs finished (every finish of a partition is published on one channel and
 * heard by every client): a waiter gets the finish's message, and a finish heard just before its waiter
 * registered counts by its run id alone. Issue 26: the client kept the last 2,000 messages whole, each
 * run's response with them, for runs nobody waited for (16 MB for 2,000 responses of 8,000 characters,
 * `npx tsx bench/finished-messages.ts`).
 */
describe("finished runs", () => {
  let runtime: ITollgateRuntime;
  let finishedRuns: FinishedRuns;
  const prefix = uniquePrefix("finished-runs");
  const never = new AbortController().signal;
  const response = (runId: string) => ({ runId, threadId: "thread_1", status: "completed", text: "done" });
  /**
   * From one node: a cluster client sends each PUBLISH to any node, and two messages published through
   * two nodes may reach the subscriber's node in either order. heardSoFar needs them in order.
   */
  const publish = (text: string) =>
    dataNodes(runtime.redis)[0]!.publish(runtime.keys.finishedChannel(), text);
  /** Every message published before this one has been heard once it resolves (one channel keeps order). */
  async function heardSoFar(marker: string): Promise<void> {
    const watch = finishedRuns.watch(marker, never);
    await watch.ready;
    await publish(JSON.stringify({ runId: marker }));
    await watch.done;
  }
  /** The watch's result if it resolved at once, else "waiting". */
  async function atOnce(runId: string, signal = never) {
    const watch = finishedRuns.watch(runId, signal);
    return Promise.race([watch.done, Promise.resolve("waiting" as const)]);
  }

  beforeAll(async () => {
    runtime = createRuntime({
      gateway: defineGateway({ name: "finished-runs", tools: [] }),
      options: { ...testRedisOptions, prefix },
      role: "client",
    });
    await runtime.ready();
    finishedRuns = new FinishedRuns(runtime);
    await finishedRuns.ready();
  });
  afterAll(async () => {
    finishedRuns.close();
    await runtime.close();
    await deletePrefix(prefix);
  });

  it("a waiter registered before the finish gets the message with its response", async () => {
    const watch = finishedRuns.watch("run_waited", never);
    await watch.ready;
    await publish(JSON.stringify({ runId: "run_waited", response: response("run_waited") }));
    expect(await watch.done).toEqual({ runId: "run_waited", response: response("run_waited") });
  });

  it("a finish heard before its waiter registered counts by its id alone: its response is not kept", async () => {
    await publish(JSON.stringify({ runId: "run_early", response: response("run_early") }));
    await heardSoFar("marker-early");
    // The waiter reads the run's response (wait-for-run.ts): the client kept no copy of it.
    expect(await atOnce("run_early")).toEqual({ runId: "run_early" });
  });

  it("an id with an escape, a bare id and unreadable JSON are each heard as their run", async () => {
    const escaped = 'run_"quoted"\\';
    const watches = [escaped, "run_bare", '{"runId":"run_broken'].map((runId) =>
      finishedRuns.watch(runId, never),
    );
    await Promise.all(watches.map((watch) => watch.ready));
    await publish(JSON.stringify({ runId: escaped, response: response(escaped) }));
    await publish("run_bare");
    await publish('{"runId":"run_broken');
    expect(await watches[0]!.done).toEqual({ runId: escaped, response: response(escaped) });
    expect(await watches[1]!.done).toEqual({ runId: "run_bare" });
    expect(await watches[2]!.done).toEqual({ runId: '{"runId":"run_broken' });
  });

  it("only the latest 2,000 finishes count for a late waiter; an older one waits, until its signal aborts", async () => {
    await publish(JSON.stringify({ runId: "run_oldest" }));
    const pipeline = runtime.redis.pipeline();
    for (let index = 0; index < 2_000; index++)
      pipeline.publish(runtime.keys.finishedChannel(), JSON.stringify({ runId: `run_later_${index}` }));
    await pipeline.exec();
    await heardSoFar("marker-latest");
    expect(await atOnce("run_later_1")).toEqual({ runId: "run_later_1" });
    const stop = new AbortController();
    expect(await atOnce("run_oldest", stop.signal)).toBe("waiting");
    const watch = finishedRuns.watch("run_oldest", stop.signal);
    stop.abort();
    expect(await watch.done).toBeUndefined();
  });

  it("a finish heard again counts from the last time it was heard", async () => {
    await publish(JSON.stringify({ runId: "run_twice" }));
    const pipeline = runtime.redis.pipeline();
    for (let index = 0; index < 1_500; index++)
      pipeline.publish(runtime.keys.finishedChannel(), JSON.stringify({ runId: `run_between_${index}` }));
    pipeline.publish(runtime.keys.finishedChannel(), JSON.stringify({ runId: "run_twice" }));
    for (let index = 0; index < 1_000; index++)
      pipeline.publish(runtime.keys.finishedChannel(), JSON.stringify({ runId: `run_after_${index}` }));
    await pipeline.exec();
    await heardSoFar("marker-twice");
    expect(await atOnce("run_twice")).toEqual({ runId: "run_twice" });
  });
});
