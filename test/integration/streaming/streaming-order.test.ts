import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../../src/contracts/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
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
  ],
});

/** Runs streaming at once on one worker, so that the flush clock writes many runs' pieces in each tick. */
const runCount = 24;

/** Numbered words: any piece out of place, lost or doubled changes the text. */
function answerOf(run: number): string {
  return Array.from({ length: 300 }, (_, word) => `r${run}w${word}`).join(" ");
}

describe("many runs streaming at once on one worker", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(gateway, "stream-order");
    await harness.startWorker({ concurrency: runCount });
  });
  afterAll(async () => {
    await harness.close();
  });

  it("stores each run's text in order, and a broken attempt's text is retracted before the new one's", async () => {
    const runs = await Promise.all(
      Array.from({ length: runCount }, async (_, run) => {
        const answer = answerOf(run);
        // Chunks 1 to 3 ms apart: the runs' paced writes fall due at different moments of the clock.
        const reply = { text: answer, chunkDelayMs: 1 + (run % 3) };
        // Every other run's stream breaks after some text went out; the request is sent again.
        const broken = run % 2 === 1;
        const input = broken ? script({ status: 500, afterChunks: 40 + run }, reply) : script(reply);
        const { runId } = await harness.client.run({ input, userContext: { userId: `u${run}` } });
        return { runId, answer, broken };
      }),
    );
    for (const { runId, answer, broken } of runs) {
      const response = await harness.client.wait(runId, { timeoutMs: 60_000 });
      expect(response.text).toBe(answer);
      const events = await eventsOf(harness, runId);
      const types = events.map((event) => event.type);
      // Deltas joined in stream order, the broken attempt's dropped at its retraction: the answer exactly.
      expect(textByStep(events)).toEqual(new Map([[0, answer]]));
      const retractions = types.filter((type) => type === "step-retracted").length;
      if (broken) {
        expect(retractions).toBe(1);
        const retractedAt = types.indexOf("step-retracted");
        // The broken attempt's text went out first, and what it wrote is a start of the answer, in order.
        const before = events
          .slice(0, retractedAt)
          .flatMap((event) => (event.type === "text-delta" ? [event.data.text] : []));
        expect(before.length).toBeGreaterThan(0);
        expect(answer.startsWith(before.join(""))).toBe(true);
      } else {
        expect(retractions).toBe(0);
      }
      // The step's text is stored before the checkpoint that records its reply.
      expect(types.lastIndexOf("text-delta")).toBeLessThan(types.lastIndexOf("model-replied"));
    }
  });
});
