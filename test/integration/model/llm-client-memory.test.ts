import { setTimeout as nextTask } from "node:timers/promises";
import v8 from "node:v8";
import vm from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LLMClient, linkedSignal } from "../../../src/model/index.js";
import { type IScriptedModel, startScriptedModel } from "../../../src/model/scripted/index.js";

// A worker makes model calls for as long as it runs: what a finished call leaves behind must be freed.
// Over the real SDK and HTTP; garbage collection is exposed at run time to check what stays reachable.

v8.setFlagsFromString("--expose-gc");
const collectGarbage = vm.runInNewContext("gc") as (options?: { type: "minor" | "major" }) => void;

describe("LLMClient memory", () => {
  let model: IScriptedModel;

  beforeAll(async () => {
    model = await startScriptedModel({ port: 0, maxRecordedRequests: 1 });
  });

  afterAll(async () => {
    await model.close();
  });

  it("a finished call is freed: the request signals of 200 calls with a cancel signal are all collected", async () => {
    // Each request's signal as the SDK hands it to fetch: reachable for as long as the call's listeners are.
    // Counted by a finalization registry: a WeakRef's deref would itself keep its target for a turn.
    let handed = 0;
    let collected = 0;
    const collectedSignals = new FinalizationRegistry<undefined>(() => {
      collected += 1;
    });
    const llm = new LLMClient(
      { model: "scripted-test", baseURL: model.url },
      {
        pauseOnRateLimit: true,
        fetch: (input, init) => {
          if (init?.signal) {
            handed += 1;
            collectedSignals.register(init.signal, undefined);
          }
          return fetch(input, init);
        },
      },
    );
    for (let index = 0; index < 200; index++) {
      await llm.complete({
        messages: [{ role: "user", content: JSON.stringify({ script: [{ text: "ok" }] }) }],
        tools: [],
        // A run's cancel signal, as the run worker passes it.
        abortSignal: new AbortController().signal,
      });
    }
    expect(handed).toBe(200);
    // Collections until all are freed, polled with a deadline: a registry's callbacks run in a later task.
    const deadline = Date.now() + 5_000;
    while (collected < handed && Date.now() < deadline) {
      collectGarbage();
      await nextTask();
    }
    // Before the fix none was: Node 20 keeps an AbortSignal.any signal for as long as it has an abort
    // listener, and the SDK's listener on it (never removed) holds the request's controller and signal.
    expect(collected).toBe(handed);
  });

  it("a finished call's objects die young: a call over the default HTTP client promotes under 24 KB", async () => {
    // The worker's peak RSS with 100 runs in flight is set by what young collections promote to the old
    // generation between two full ones (docs/BENCHMARKS.md, "Worker memory"). Over Node 20's global fetch each
    // call's request, response, streams and signals outlived young collections (undici registers every
    // response with a FinalizationRegistry): 32-36 KB a call here, the scripted model's own share (it runs
    // in this process) included. Over the node:http client: 15-17 KB, most of it the model's.
    const llm = new LLMClient({ model: "scripted-test", baseURL: model.url });
    const oldSpaceUsed = () =>
      v8.getHeapSpaceStatistics().find((space) => space.space_name === "old_space")!.space_used_size;
    const call = async () => {
      await llm.complete({
        messages: [{ role: "user", content: JSON.stringify({ script: [{ text: "ok" }] }) }],
        tools: [],
        abortSignal: new AbortController().signal,
      });
    };
    // Two young collections promote whatever outlived the first; nothing of a freed call should.
    const collectYoung = async () => {
      await nextTask();
      collectGarbage({ type: "minor" });
      collectGarbage({ type: "minor" });
    };
    await call();
    const promoted: number[] = [];
    for (let index = 0; index < 40; index++) {
      await collectYoung();
      const before = oldSpaceUsed();
      await call();
      await collectYoung();
      promoted.push(oldSpaceUsed() - before);
    }
    // The median: a full collection started by V8 in between would shrink one figure, never grow it.
    promoted.sort((first, second) => first - second);
    expect(promoted[20]).toBeLessThan(24 * 1024);
  });

  it("linkedSignal: a signal a tool listens to for good is freed once released, its sources still alive", async () => {
    // The worker's cancel signal and BullMQ's job signal outlive each call; a tool may never remove its
    // listener from the signal it was given (the tool processor links the two for it).
    const cancel = new AbortController();
    const job = new AbortController();
    let collected = 0;
    const collectedSignals = new FinalizationRegistry<undefined>(() => {
      collected += 1;
    });
    // In a function of its own: the async test's frame keeps no reference to the last one.
    const callTools = () => {
      for (let index = 0; index < 200; index++) {
        const linked = linkedSignal([cancel.signal, job.signal]);
        linked.signal.addEventListener("abort", () => undefined);
        collectedSignals.register(linked.signal, undefined);
        linked.release();
      }
    };
    callTools();
    const deadline = Date.now() + 5_000;
    while (collected < 200 && Date.now() < deadline) {
      collectGarbage();
      await nextTask();
    }
    expect(collected).toBe(200);
    expect(cancel.signal.aborted || job.signal.aborted).toBe(false);
  });

  it("linkedSignal: aborts with the reason of the source that aborted, and at once when one already had", () => {
    const first = new AbortController();
    const second = new AbortController();
    const linked = linkedSignal([first.signal, second.signal]);
    second.abort(new Error("cancelled"));
    expect(linked.signal.aborted).toBe(true);
    expect((linked.signal.reason as Error).message).toBe("cancelled");
    first.abort(new Error("later"));
    expect((linked.signal.reason as Error).message).toBe("cancelled");
    const already = linkedSignal([new AbortController().signal, second.signal]);
    expect(already.signal.aborted).toBe(true);
    expect((already.signal.reason as Error).message).toBe("cancelled");
  });

  it("linkedSignal: released, it no longer follows its sources", () => {
    const source = new AbortController();
    const linked = linkedSignal([source.signal]);
    linked.release();
    source.abort();
    expect(linked.signal.aborted).toBe(false);
  });
});
