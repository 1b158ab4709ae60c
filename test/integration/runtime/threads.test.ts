import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { requestsWithMarker } from "../../helpers/model-requests.js";
import { script } from "../../helpers/script.js";

const user = { userId: "u-threads" };

describe("threads", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "threads");
    await harness.startWorker({ concurrency: 4 });
  });
  afterAll(() => harness.close());

  it("a second run on the same thread sees the first run's messages", async () => {
    const threadId = "thread-history";
    const first = await harness.client.ask({
      input: script(
        { calls: [{ name: "work", input: { label: "remember me", ms: 0 } }] },
        { text: "first answer" },
      ),
      userContext: user,
      threadId,
    });
    expect(first.status).toBe("completed");
    const marker = "marker-second-run";
    await harness.client.ask({
      input: "what did you say?",
      userContext: user,
      threadId,
      instructions: marker,
    });
    const [request] = requestsWithMarker(harness.model, marker);
    const messages = request!.messages!;
    expect(messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
    ]);
    expect(messages[4]).toMatchObject({ role: "assistant", content: "first answer" });
    expect(JSON.stringify(messages[3])).toContain("remember me");
  });

  it("two runs on one thread submitted together run one after the other, in submission order", async () => {
    const threadId = "thread-order";
    const first = await harness.client.run({
      input: script({ calls: [{ name: "work", input: { label: "first-run", ms: 300 } }] }, { text: "one" }),
      userContext: user,
      threadId,
    });
    const second = await harness.client.run({
      input: script({ text: "two" }),
      userContext: user,
      threadId,
    });
    const [firstResponse, secondResponse] = await Promise.all([
      harness.client.wait(first.runId),
      harness.client.wait(second.runId),
    ]);
    expect(firstResponse.text).toBe("one");
    expect(secondResponse.text).toBe("two");
    const firstView = await harness.client.getRun(first.runId);
    const secondView = await harness.client.getRun(second.runId);
    expect(secondView.startedAt!).toBeGreaterThanOrEqual(firstView.finishedAt!);
  });
});
