import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ledger, testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { requestsWithMarker } from "../../helpers/model-requests.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

const user = { userId: "u-tool-results" };

describe("tool results the model reads", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "results");
    await harness.startWorker();
  });
  afterAll(() => harness.close());
  beforeEach(() => {
    ledger.length = 0;
  });

  it("D60 (per-tool limits): a tool that ignores its signal still yields a 504 at its timeout and the run goes on", async () => {
    const response = await harness.client.ask({
      input: script({ calls: [{ name: "ignores_signal", input: {} }] }, { text: "went on" }),
      userContext: user,
    });
    expect(response.status).toBe("completed");
    expect(response.text).toBe("went on");
    const part = response.toolResults[0]!;
    expect(part).toMatchObject({
      outcome: "timeout",
      status: 504,
      isError: true,
      errorCode: "TG_TOOL_TIMEOUT",
    });
    expect(part.text).toMatch(/^code: TG_TOOL_TIMEOUT, status: 504, userMessage: /);
    // The registry stopped waiting: the answer came while the tool was still running.
    expect(ledger.some((entry) => entry.tool === "ignores_signal" && entry.event === "end")).toBe(false);
  });

  it("D60 (per-tool limits): a tool that listens sees abortSignal.aborted at its timeout", async () => {
    const response = await harness.client.ask({
      input: script({ calls: [{ name: "listens_to_signal", input: {} }] }, { text: "went on" }),
      userContext: user,
    });
    expect(response.toolResults[0]).toMatchObject({ outcome: "timeout", status: 504 });
    await waitUntil(() =>
      ledger.some((entry) => entry.tool === "listens_to_signal" && entry.event === "aborted"),
    );
  });

  it("D72 (hidden tools): an unknown tool, a hidden tool, non-JSON arguments and a schema failure are error results; the run continues", async () => {
    const marker = "marker-bad-calls";
    const response = await harness.client.ask({
      input: script(
        { calls: [{ name: "work", input: { label: "first", ms: 0 } }] },
        {
          calls: [
            { name: "no_such_tool", input: {} },
            { name: "first_step_only", input: {} },
            { name: "work", arguments: "{not json" },
            { name: "work", input: { label: 42 } },
            { name: "__proto__", input: {} },
          ],
        },
        { text: "recovered" },
      ),
      userContext: user,
      instructions: marker,
    });
    expect(response.status).toBe("completed");
    expect(response.text).toBe("recovered");
    const step1 = response.toolResults.filter((part) => part.step === 1);
    expect(step1.map((part) => part.outcome)).toEqual([
      "unknown_tool",
      "hidden",
      "invalid_input",
      "invalid_input",
      "unknown_tool",
    ]);
    expect(step1.every((part) => part.isError)).toBe(true);
    expect(step1[3]!.text).toContain("label");
    // What the model read is in the next request, as tool messages, exactly.
    const requests = requestsWithMarker(harness.model, marker);
    const lastMessages = requests.at(-1)!.messages!;
    const toolTexts = lastMessages
      .filter((message) => message.role === "tool")
      .map((message) => message.content);
    expect(toolTexts.slice(-5)).toEqual(step1.map((part) => part.text));
    // Nothing ran for those calls.
    expect(ledger.filter((entry) => entry.tool === "work" && entry.event === "start")).toHaveLength(1);
  });

  it("a dynaError with userMessage reaches the model as one line with its code", async () => {
    const response = await harness.client.ask({
      input: script({ calls: [{ name: "fails", input: {} }] }, { text: "ok" }),
      userContext: user,
    });
    expect(response.toolResults[0]).toMatchObject({
      outcome: "error",
      errorCode: 4711,
      status: 409,
      text: "code: 4711, status: 409, userMessage: The service said no.",
    });
    expect(JSON.stringify(response)).not.toContain("internal detail");
  });

  it("issue 10 defect 4: an output the queue cannot store is a tool error (the generic line), executed once", async () => {
    const response = await harness.client.ask({
      input: script({ calls: [{ name: "unstorable_output", input: {} }] }, { text: "finished anyway" }),
      userContext: user,
    });
    expect(response.status).toBe("completed");
    expect(response.text).toBe("finished anyway");
    expect(response.toolResults[0]).toMatchObject({
      outcome: "error",
      status: 500,
      errorCode: "TG_TOOL_FAILED",
      isError: true,
    });
    // Before: the job failed at BullMQ's serialization and ran once per attempt (3).
    const attempts = ledger.filter((entry) => entry.tool === "unstorable_output").length;
    expect(attempts).toBe(1);
  });
});
