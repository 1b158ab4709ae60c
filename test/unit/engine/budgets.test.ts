import { describe, expect, it } from "vitest";
import { gatewayToolCodes } from "../../../src/tools/index.js";
import { answer, call, callTools, type IScriptedReply, playRun } from "./driver.js";
import { defaultTools } from "./engine-tools.js";

const tokens = (totalTokens: number) => ({ promptTokens: totalTokens, completionTokens: 0, totalTokens });

interface IBudgetCase {
  name: string;
  request: { maxSteps?: number; maxTotalTokens?: number; maxToolCalls?: number };
  replies: IScriptedReply[];
  /** Model calls made; the last is the one without tools when the run ends as budget_exhausted. */
  steps: number;
  stopReason: string;
  /** Calls that ran as tool jobs, keyed `s<step>-c<index>`. */
  dispatched: string[];
  /** Calls refused because the tool-call budget was spent. */
  refused: string[];
}

const cases: IBudgetCase[] = [
  {
    name: "no budget: the run answers as usual",
    request: {},
    replies: [callTools([call("note")], { usage: tokens(1_000) }), answer("Done.")],
    steps: 2,
    stopReason: "answered",
    dispatched: ["s0-c0"],
    refused: [],
  },
  {
    name: "tokens under the budget: the run answers as usual",
    request: { maxTotalTokens: 100 },
    replies: [callTools([call("note")], { usage: tokens(40) }), answer("Done.", tokens(40))],
    steps: 2,
    stopReason: "answered",
    dispatched: ["s0-c0"],
    refused: [],
  },
  {
    name: "tokens spent by a reply with calls: the calls run, then one last step without tools",
    request: { maxTotalTokens: 100 },
    replies: [callTools([call("note")], { usage: tokens(100) }), answer("Out of tokens.", tokens(50))],
    steps: 2,
    stopReason: "budget_exhausted",
    dispatched: ["s0-c0"],
    refused: [],
  },
  {
    name: "tokens spent on the second step",
    request: { maxTotalTokens: 100 },
    replies: [
      callTools([call("note")], { usage: tokens(60) }),
      callTools([call("note")], { usage: tokens(60) }),
      answer("Out of tokens."),
    ],
    steps: 3,
    stopReason: "budget_exhausted",
    dispatched: ["s0-c0", "s1-c0"],
    refused: [],
  },
  {
    name: "tokens spent by a plain answer: answered (nothing is left to cut short)",
    request: { maxTotalTokens: 10 },
    replies: [answer("Hello.", tokens(500))],
    steps: 1,
    stopReason: "answered",
    dispatched: [],
    refused: [],
  },
  {
    name: "tool calls exactly at the budget: they run, then one last step",
    request: { maxToolCalls: 2 },
    replies: [callTools([call("note"), call("note")]), answer("Out of calls.")],
    steps: 2,
    stopReason: "budget_exhausted",
    dispatched: ["s0-c0", "s0-c1"],
    refused: [],
  },
  {
    name: "tool calls past the budget in one reply: the extra ones are refused unrun",
    request: { maxToolCalls: 2 },
    replies: [callTools([call("note"), call("note"), call("note")]), answer("Out of calls.")],
    steps: 2,
    stopReason: "budget_exhausted",
    dispatched: ["s0-c0", "s0-c1"],
    refused: ["s0-c2"],
  },
  {
    name: "tool calls spent over two steps",
    request: { maxToolCalls: 3 },
    replies: [
      callTools([call("note"), call("note")]),
      callTools([call("note"), call("note")]),
      answer("Ok."),
    ],
    steps: 3,
    stopReason: "budget_exhausted",
    dispatched: ["s0-c0", "s0-c1", "s1-c0"],
    refused: ["s1-c1"],
  },
  {
    name: "a call to an unknown tool counts against the budget",
    request: { maxToolCalls: 2 },
    replies: [callTools([call("nope"), call("note")]), answer("Ok.")],
    steps: 2,
    stopReason: "budget_exhausted",
    dispatched: ["s0-c1"],
    refused: [],
  },
  {
    name: "the budget and maxSteps spent at the same step: budget_exhausted",
    request: { maxSteps: 1, maxToolCalls: 1 },
    replies: [callTools([call("note")]), answer("Ok.")],
    steps: 2,
    stopReason: "budget_exhausted",
    dispatched: ["s0-c0"],
    refused: [],
  },
  {
    name: "maxSteps before the budget: max_steps",
    request: { maxSteps: 1, maxToolCalls: 5, maxTotalTokens: 1_000 },
    replies: [callTools([call("note")]), answer("Ok.")],
    steps: 2,
    stopReason: "max_steps",
    dispatched: ["s0-c0"],
    refused: [],
  },
];

describe("run budgets: tokens and tool calls", () => {
  it.each(cases)("$name", async (testCase) => {
    const played = await playRun({
      tools: defaultTools,
      request: testCase.request,
      replies: testCase.replies,
    });
    expect(played.response).toMatchObject({
      status: "completed",
      stopReason: testCase.stopReason,
      steps: testCase.steps,
    });
    expect(played.dispatched).toEqual(testCase.dispatched);
    const refused = played.state.toolResults
      .filter((result) => result.errorCode === gatewayToolCodes.TOOL_BUDGET_EXHAUSTED)
      .map((result) => result.callId.slice("run-1-".length));
    expect(refused).toEqual(testCase.refused);
    // The last model call of a spent budget is offered no tools.
    if (testCase.stopReason === "budget_exhausted") {
      expect(played.plans.at(-1)).toMatchObject({ final: true, tools: [] });
      expect(played.trace.at(-1)).toBe("model final");
    }
  });

  it("a refused call tells the model the budget is spent and is not retried", async () => {
    const played = await playRun({
      tools: defaultTools,
      request: { maxToolCalls: 1 },
      replies: [callTools([call("note"), call("note")]), answer("Ok.")],
    });
    expect(played.state.toolResults[1]).toMatchObject({
      isError: true,
      status: 429,
      outcome: "denied",
      errorCode: "TG_TOOL_BUDGET_EXHAUSTED",
    });
    expect(played.state.toolResults[1]?.text).toContain("Do not retry this call.");
    // The transcript stays well formed: one tool message per call of the assistant message.
    expect(played.state.messages.filter((message) => message.role === "tool")).toHaveLength(2);
  });
});
