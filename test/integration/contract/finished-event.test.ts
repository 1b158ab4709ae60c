import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";

/** Issue 10, defect 5: whole outputs never go into events; the run keeps them. */
describe("run-finished carries the response without the tools' outputs", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "finished-event");
    await harness.startWorker();
  });
  afterAll(() => harness.close());

  it("the event has the text the model read; the run has the output", async () => {
    const response = await harness.client.ask({
      input: script({ calls: [{ name: "work", input: { label: "big", ms: 0 } }] }, { text: "done" }),
      userContext: { userId: "u-finished-event" },
    });
    expect(response.toolResults[0]?.output).toEqual({ label: "big", outcome: "done" });
    const events = [];
    for await (const event of harness.client.events(response.runId)) events.push(event);
    const finished = events.at(-1)!;
    expect(finished.type).toBe("run-finished");
    if (finished.type !== "run-finished") return;
    const part = finished.data.response.toolResults[0]!;
    expect(part).not.toHaveProperty("output");
    expect(part.text).toBe(response.toolResults[0]!.text);
  });
});
