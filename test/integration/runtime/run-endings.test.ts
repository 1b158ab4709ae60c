import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { offeredTools, requestsWithMarker } from "../../helpers/model-requests.js";
import { script } from "../../helpers/script.js";

const user = { userId: "u-endings" };

describe("how runs end", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "endings");
    await harness.startWorker();
  });
  afterAll(() => harness.close());

  it("D86 endsRun: the other calls of the step still run, then exactly one more model request with no tools", async () => {
    const marker = "marker-ends-run";
    const response = await harness.client.ask({
      input: script(
        {
          calls: [
            { name: "handover", input: { reason: "angry customer" } },
            { name: "work", input: { label: "sibling", ms: 50 } },
          ],
        },
        { calls: [{ name: "work", input: { label: "never", ms: 0 } }] },
      ),
      userContext: user,
      instructions: marker,
    });
    expect(response.status).toBe("completed");
    expect(response.endedByTool).toBe("handover");
    expect(response.stopReason).toBe("ended_by_tool");
    expect(response.toolResults.map((part) => [part.toolName, part.outcome])).toEqual([
      ["handover", "ok"],
      ["work", "ok"],
    ]);
    expect(response.toolResults[0]!.endedRun).toBe(true);
    const requests = requestsWithMarker(harness.model, marker);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.tools).toBeUndefined();
    expect(response.text.startsWith("[no-tools]")).toBe(true);
    expect(response.steps).toBe(2);
  });

  it("maxSteps reached: a final answer step without tools, and the response says why it stopped", async () => {
    const marker = "marker-max-steps";
    const call = { calls: [{ name: "work", input: { label: "again", ms: 0 } }] };
    const response = await harness.client.ask({
      input: script(call, call, call, call),
      userContext: user,
      maxSteps: 2,
      instructions: marker,
    });
    expect(response.status).toBe("completed");
    expect(response.stopReason).toBe("max_steps");
    expect(response.endedByTool).toBeUndefined();
    const requests = requestsWithMarker(harness.model, marker);
    expect(requests).toHaveLength(3);
    expect(offeredTools(requests[0]!)).toContain("work");
    expect(offeredTools(requests[1]!)).toContain("work");
    expect(requests[2]!.tools).toBeUndefined();
    expect(response.toolResults).toHaveLength(2);
  });

  it.each([
    ["the token budget", { maxTotalTokens: 1 }, ["ok"]],
    ["the tool-call budget", { maxToolCalls: 1 }, ["ok", "denied"]],
  ])(
    "%s spent: the step's calls settle, then one last request without tools; budget_exhausted",
    async (name, budget, outcomes) => {
      const marker = `marker-budget-${name}`;
      const calls = outcomes.map((_outcome, index) => ({
        name: "work",
        input: { label: `b${index}`, ms: 0 },
      }));
      const response = await harness.client.ask({
        input: script({ calls }, { calls }, { calls }),
        userContext: user,
        instructions: marker,
        ...budget,
      });
      expect(response).toMatchObject({ status: "completed", stopReason: "budget_exhausted", steps: 2 });
      expect(response.toolResults.map((part) => part.outcome)).toEqual(outcomes);
      const requests = requestsWithMarker(harness.model, marker);
      expect(requests).toHaveLength(2);
      expect(offeredTools(requests[0]!)).toContain("work");
      expect(requests[1]!.tools).toBeUndefined();
      expect(response.text.startsWith("[no-tools]")).toBe(true);
    },
  );

  it("D89 (visibleWhen): the tools offered follow visibleWhen at each step", async () => {
    const marker = "marker-visibility";
    await harness.client.ask({
      input: script({ calls: [{ name: "work", input: { label: "x", ms: 0 } }] }, { text: "done" }),
      userContext: user,
      instructions: marker,
    });
    const requests = requestsWithMarker(harness.model, marker);
    expect(offeredTools(requests[0]!)).toContain("first_step_only");
    expect(offeredTools(requests[1]!)).not.toContain("first_step_only");
  });

  it("the model endpoint answers 429 then 200: the run succeeds", async () => {
    const response = await harness.client.ask({
      input: script({ status: 429 }, { text: "after the retry" }),
      userContext: user,
      instructions: "marker-429",
    });
    expect(response.status).toBe("completed");
    expect(response.text).toBe("after the retry");
    expect(requestsWithMarker(harness.model, "marker-429")).toHaveLength(2);
  });

  it("the model endpoint keeps failing: the run ends failed with a clear code and message, in its events", async () => {
    const { runId } = await harness.client.run({
      input: script({ status: 500, repeat: true }),
      userContext: user,
    });
    const response = await harness.client.wait(runId);
    expect(response.status).toBe("failed");
    expect(response.stopReason).toBe("failed");
    expect(response.error?.code).toBe("TG_MODEL_FAILED");
    expect(response.error?.message).toMatch(/500/);
    const events = [];
    for await (const event of harness.client.events(runId)) events.push(event);
    const finished = events.at(-1)!;
    expect(finished.type).toBe("run-finished");
    expect(finished.data).toMatchObject({
      status: "failed",
      response: { error: { code: "TG_MODEL_FAILED" } },
    });
  });

  it("additionalTools join the run's tools for that run only: offered and run there, unknown elsewhere", async () => {
    const marker = "marker-additional";
    const withExtra = await harness.client.ask({
      input: script({ calls: [{ name: "extra_lookup", input: {} }] }, { text: "done" }),
      userContext: user,
      additionalTools: ["extra_lookup"],
      instructions: marker,
    });
    expect(offeredTools(requestsWithMarker(harness.model, marker)[0]!)).toContain("extra_lookup");
    expect(withExtra.toolResults[0]).toMatchObject({ outcome: "ok", text: '{"extra":true}' });
    const without = await harness.client.ask({
      input: script({ calls: [{ name: "extra_lookup", input: {} }] }, { text: "done" }),
      userContext: user,
    });
    expect(without.toolResults[0]!.outcome).toBe("unknown_tool");
  });
});
