import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../../src/contracts/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { TEXT_DELTA_MAX_CHARS } from "../../../src/workers/text-delta-batcher.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { eventsOf, textByStep } from "../../helpers/streamed-text.js";

const gateway = defineGateway({
  tools: [
    defineTool({
      name: "add",
      description: "Adds two numbers.",
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      execute: async ({ input }) => ({ sum: input.a + input.b }),
    }),
    defineTool({
      name: "fail",
      description: "Always fails.",
      inputSchema: z.object({}),
      execute: async (): Promise<{ never: true }> => {
        throw new Error("boom");
      },
    }),
  ],
});

const longText = Array.from({ length: 300 }, (_, index) => `word${index}`).join(" ");

/** A run's stored outcome without what differs between two runs of the same script (ids, times). */
function comparable(view: Awaited<ReturnType<IHarness["client"]["getRun"]>>): unknown {
  return JSON.parse(
    JSON.stringify(view.response)
      .replaceAll(view.runId, "RUN")
      .replace(/"(durationMs|createdAt|startedAt|finishedAt|at)":[0-9.]+/g, '"$1":0'),
  );
}

describe("a run whose model replies stream", () => {
  let streaming: IHarness;
  let plain: IHarness;
  beforeAll(async () => {
    streaming = await createHarness(gateway, "stream-on", { eventsMaxLength: 100, textDeltasMaxPerRun: 40 });
    await streaming.startWorker();
    plain = await createHarness(gateway, "stream-off");
    await plain.startWorker({ model: { baseURL: plain.model.url, maxRetries: 2, streaming: false } });
  });
  afterAll(async () => {
    await Promise.all([streaming.close(), plain.close()]);
  });

  const input = script(
    {
      calls: [
        { name: "add", input: { a: 1, b: 2 } },
        { name: "fail", input: {} },
      ],
    },
    { text: longText },
  );

  it("stores the same state and response as without streaming, and its deltas make the answer", async () => {
    const [streamed, unstreamed] = await Promise.all(
      [streaming, plain].map(async (harness) => {
        const { runId } = await harness.client.run({
          input,
          threadId: "same-thread",
          userContext: { userId: "u1" },
        });
        const response = await harness.client.wait(runId, { timeoutMs: 20_000 });
        return {
          runId,
          response,
          view: await harness.client.getRun(runId),
          transcript: JSON.stringify(await harness.client.transcript(runId)).replaceAll(runId, "RUN"),
          events: await eventsOf(harness, runId),
        };
      }),
    );
    expect(streamed?.response.status).toBe("completed");
    expect(streamed?.response.text).toBe(longText);
    expect(comparable(streamed!.view)).toEqual(comparable(unstreamed!.view));
    expect(streamed?.view.steps).toEqual(unstreamed?.view.steps);
    expect(streamed?.transcript.replace(/"(durationMs|at)":[0-9.]+/g, "")).toBe(
      unstreamed?.transcript.replace(/"(durationMs|at)":[0-9.]+/g, ""),
    );

    const deltas = streamed!.events.filter((event) => event.type === "text-delta");
    expect(textByStep(streamed!.events)).toEqual(new Map([[1, longText]]));
    // Batched: ~1,500 characters arrive in ~375 chunks of 4; writes go at once, then per 50 ms or 1 KB.
    expect(deltas.length).toBeLessThanOrEqual(1 + Math.ceil(longText.length / TEXT_DELTA_MAX_CHARS) + 2);
    expect(deltas[0]?.data.text.length).toBeLessThan(10);
    expect(unstreamed!.events.some((event) => event.type === "text-delta")).toBe(false);

    // The deltas come after the step's start and before the reply that ends it.
    const types = streamed!.events.map((event) => event.type);
    expect(types.indexOf("text-delta")).toBeGreaterThan(types.lastIndexOf("step-settled"));
    expect(types.lastIndexOf("text-delta")).toBeLessThan(types.lastIndexOf("model-replied"));
  });

  it("announces each tool call's end with tool-call-settled", async () => {
    const { runId } = await streaming.client.run({ input, userContext: { userId: "u2" } });
    await streaming.client.wait(runId, { timeoutMs: 20_000 });
    const settled = (await eventsOf(streaming, runId)).filter((event) => event.type === "tool-call-settled");
    expect(settled.map((event) => event.data).sort((a, b) => a.toolName.localeCompare(b.toolName))).toEqual([
      {
        callId: expect.any(String),
        toolName: "add",
        ok: true,
        durationMs: expect.any(Number),
        at: expect.any(Number),
      },
      {
        callId: expect.any(String),
        toolName: "fail",
        ok: false,
        durationMs: expect.any(Number),
        errorCode: expect.any(String),
        at: expect.any(Number),
      },
    ]);
  });

  it("retracts the step when a stream breaks mid-answer and the request is sent again", async () => {
    const cut = script({ status: 500, afterChunks: 4 }, { text: "the whole answer, sent twice" });
    const { runId } = await streaming.client.run({ input: cut, userContext: { userId: "u3" } });
    const response = await streaming.client.wait(runId, { timeoutMs: 20_000 });
    expect(response.text).toBe("the whole answer, sent twice");
    const events = await eventsOf(streaming, runId);
    const types = events.map((event) => event.type);
    expect(types).toContain("step-retracted");
    // Text of the broken attempt, then the retraction, then the new attempt's text.
    expect(types.indexOf("text-delta")).toBeLessThan(types.indexOf("step-retracted"));
    expect(types.lastIndexOf("text-delta")).toBeGreaterThan(types.indexOf("step-retracted"));
    expect(textByStep(events).get(0)).toBe("the whole answer, sent twice");
  });

  it("keeps lifecycle events when a long answer spends the text's allowance", async () => {
    // 40 text writes at most (textDeltasMaxPerRun), 100 lifecycle events (eventsMaxLength): a 30 KB answer
    // with a chunk every 2 ms would take ~60 writes; the run's first event must still be there.
    const huge = "x".repeat(30_000);
    const { runId } = await streaming.client.run({
      input: script({ text: huge, chunkDelayMs: 0 }),
      userContext: { userId: "u4" },
    });
    const response = await streaming.client.wait(runId, { timeoutMs: 20_000 });
    expect(response.text).toBe(huge);
    const events = await eventsOf(streaming, runId);
    expect(events[0]?.type).toBe("run-queued");
    expect(events.filter((event) => event.type === "text-delta").length).toBeLessThanOrEqual(40);
    expect(events.at(-1)?.type).toBe("run-finished");
  });
});
