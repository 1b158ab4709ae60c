import { describe, expect, it } from "vitest";
import { askToolRefusalOf, askToolResultOf } from "../../../../src/api/mcp/ask-tool-result.js";
import type { IGatewayResponse } from "../../../../src/contracts/index.js";

const completed: IGatewayResponse = {
  runId: "run-1",
  threadId: "thread-1",
  status: "completed",
  text: '{"answer":"yes"}',
  output: { answer: "yes" },
  toolResults: [],
  stopReason: "answered",
  steps: 1,
  usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
};

const meta = (status: string) => ({ "tollgate/run": { runId: "run-1", threadId: "thread-1", status } });

describe("a finished run as the ask tool's result", () => {
  it("a completed run answers its text, and its structured answer when the tool declares one", () => {
    expect(askToolResultOf(completed, true)).toEqual({
      content: [{ type: "text", text: '{"answer":"yes"}' }],
      structuredContent: { answer: "yes" },
      _meta: meta("completed"),
    });
    expect(askToolResultOf({ ...completed, output: undefined }, false)).toEqual({
      content: [{ type: "text", text: '{"answer":"yes"}' }],
      _meta: meta("completed"),
    });
  });

  it.each<[string, Partial<IGatewayResponse>, boolean, string]>([
    [
      "failed with an error",
      { status: "failed", error: { code: "TG_OUTPUT_INVALID", message: "The answer is not valid." } },
      true,
      "TG_OUTPUT_INVALID: The answer is not valid.",
    ],
    [
      "timed out without an error",
      { status: "timed_out", output: undefined },
      false,
      "Run run-1 ended timed out.",
    ],
    ["cancelled", { status: "cancelled", output: undefined }, false, "Run run-1 ended cancelled."],
    [
      "completed by a tool, no structured answer",
      { output: undefined, endedByTool: "escalate" },
      true,
      "Run run-1 completed without a structured answer (the tool escalate ended it).",
    ],
  ])("a run %s is the tool's error", (_case, change, declaresOutput, text) => {
    const response = { ...completed, ...change } as IGatewayResponse;
    expect(askToolResultOf(response, declaresOutput)).toEqual({
      content: [{ type: "text", text }],
      isError: true,
      _meta: meta(response.status),
    });
  });

  it("a refused request is the tool's error, with its code", () => {
    expect(askToolRefusalOf({ code: "TG_FORBIDDEN", message: "No." })).toEqual({
      content: [{ type: "text", text: "TG_FORBIDDEN: No." }],
      isError: true,
    });
  });
});
