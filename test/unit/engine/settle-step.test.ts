import { describe, expect, it } from "vitest";
import { EToolCallVerdict } from "../../../src/contracts/index.js";
import { createRunState, settleStep } from "../../../src/engine/internals.js";
import { timeoutFailure, unexpectedFailure } from "../../../src/tools/index.js";
import {
  answer,
  approval,
  approvedAndRan,
  call,
  callTools,
  type IPlayOptions,
  jobFailed,
  playRun,
  rawCall,
  resultOf,
  runId,
  runRequest,
  threadId,
  toolFailed,
  toolOk,
} from "./driver.js";
import { defaultTools } from "./engine-tools.js";

describe("settleStep: the transcript", () => {
  it("the assistant message with every tool call, then one tool message per call, in call order", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [
        callTools([call("note", { value: "a" }), call("nope"), call("lookup", { orderId: "42" })], {
          text: "Let me check.",
        }),
        answer("Done."),
      ],
      // The last call reports first: the transcript still follows the model's order.
      children: { "s0-c0": [[], toolOk("slow")], "s0-c2": [toolOk("fast")] },
    });
    expect(played.state.messages).toEqual([
      { role: "user", content: "Refund order 42." },
      {
        role: "assistant",
        content: "Let me check.",
        toolCalls: [
          { id: "call_0_0", name: "note", argumentsJson: '{"value":"a"}' },
          { id: "call_0_1", name: "nope", argumentsJson: "{}" },
          { id: "call_0_2", name: "lookup", argumentsJson: '{"orderId":"42"}' },
        ],
      },
      { role: "tool", toolCallId: "call_0_0", content: "slow" },
      { role: "tool", toolCallId: "call_0_1", content: resultOf(played, "s0-c1").text },
      { role: "tool", toolCallId: "call_0_2", content: "fast" },
      { role: "assistant", content: "Done." },
    ]);
    expect(played.state.toolResults.map((result) => result.toolCallId)).toEqual([
      "call_0_0",
      "call_0_1",
      "call_0_2",
    ]);
  });

  it("an input a human edited replaces the model's arguments: the model sees what ran", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [
        callTools([rawCall("refund", '{ "amount": 500 }'), rawCall("approve_me", '{ "amount" : 3 }')]),
        answer("Done."),
      ],
      children: {
        "s0-c0": [approvedAndRan({ refunded: 50 }, { editedInput: { amount: 50 } })],
        "s0-c1": [approvedAndRan({ paid: 3 })],
      },
    });
    expect(played.state.messages[1]).toMatchObject({
      role: "assistant",
      toolCalls: [
        { name: "refund", argumentsJson: '{"amount":50}' },
        // Approved as it was: the model's own text, untouched.
        { name: "approve_me", argumentsJson: '{ "amount" : 3 }' },
      ],
    });
  });

  it("executed records only the tools whose call succeeded, in order, with repeats, across steps", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [
        callTools([
          call("note"),
          call("lookup", { orderId: "1" }),
          call("blocked"),
          call("nope"),
          call("note"),
        ]),
        callTools([call("lookup", { orderId: "2" }), call("note")]),
        answer("Done."),
      ],
      children: { "s0-c1": [toolFailed(unexpectedFailure())], "s1-c1": [toolFailed(timeoutFailure(10))] },
    });
    const executedAfterEachStep = [...new Set(played.states.map((state) => state.executed.join(",")))];
    expect(executedAfterEachStep).toEqual(["", "note,note", "note,note,lookup"]);
  });

  it("settleStep changes nothing while a call is unsettled, nor without a step", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [callTools([call("note")])],
      pauseBefore: (action) => action.type === "wait-children",
    });
    expect(settleStep(played.state, 1)).toBe(played.state);
    const fresh = createRunState({ runId, threadId, request: runRequest(), requestHash: "h", now: 1 });
    expect(settleStep(fresh, 2)).toBe(fresh);
  });
});

describe("D86 endsRun: a successful call of an endsRun tool ends the run after its step", () => {
  it("final-model phase, endedByTool, stopReason ended_by_tool, endedRun on that part only", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [
        callTools([call("note"), call("handover", { reason: "angry" }), call("lookup", { orderId: "1" })]),
        answer("A colleague takes over."),
      ],
      children: { "s0-c1": [toolOk({ accepted: true }, { endsRun: true })] },
      pauseBefore: (action, state) => action.type === "call-model" && state.stepIndex === 1,
    });
    expect(played.state).toMatchObject({
      phase: "final-model",
      endedByTool: "handover",
      stopReason: "ended_by_tool",
    });
    // The other calls of the step still ran.
    expect(
      played.state.toolResults.map((result) => [result.toolName, result.outcome, result.endedRun]),
    ).toEqual([
      ["note", "ok", undefined],
      ["handover", "ok", true],
      ["lookup", "ok", undefined],
    ]);
    const finished = await playRun({
      tools: defaultTools,
      replies: [callTools([call("handover", { reason: "angry" })]), answer("A colleague takes over.")],
      children: { "s0-c0": [toolOk({ accepted: true }, { endsRun: true })] },
    });
    expect(finished.trace).toEqual(["model", "decide c0", "wait c0", "settle", "model final"]);
    expect(finished.response).toMatchObject({
      status: "completed",
      text: "A colleague takes over.",
      endedByTool: "handover",
      stopReason: "ended_by_tool",
      steps: 2,
    });
  });

  it("an approved call that ends the run ends it too", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [callTools([call("handover", { reason: "ask" })]), answer("Handed over.")],
      children: {
        "s0-c0": [[approval("approved", { approver: "ann" }), toolOk({ accepted: true }, { endsRun: true })]],
      },
    });
    expect(played.response).toMatchObject({ endedByTool: "handover", stopReason: "ended_by_tool" });
    expect(resultOf(played, "s0-c0")).toMatchObject({ endedRun: true, approval: { decision: "approved" } });
  });

  it("two ending calls in one step: the first names the run's end", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [
        callTools([call("handover", { reason: "a" }), call("handover", { reason: "b" })]),
        answer("Ok."),
      ],
      children: {
        "s0-c0": [toolOk({ accepted: true }, { endsRun: true })],
        "s0-c1": [toolOk({ accepted: true }, { endsRun: true })],
      },
    });
    expect(played.state.toolResults.map((result) => result.endedRun)).toEqual([true, undefined]);
  });

  it.each<[string, IPlayOptions["children"] & object, string]>([
    [
      "the tool failed (even if the report says endsRun)",
      { "s0-c0": [toolFailed(unexpectedFailure(), { endsRun: true })] },
      "error",
    ],
    ["the tool timed out", { "s0-c0": [toolFailed(timeoutFailure(1000), { endsRun: true })] }, "timeout"],
    ["its tool job failed", { "s0-c0": [jobFailed("tools")] }, "error"],
    ["the endsRun predicate said no", { "s0-c0": [toolOk({ accepted: false }, { endsRun: false })] }, "ok"],
  ])("a call of an endsRun tool does not end the run when %s", async (_name, children, outcome) => {
    const played = await playRun({
      tools: defaultTools,
      replies: [callTools([call("handover", { reason: "angry" })]), answer("I could not hand over.")],
      children,
    });
    expectNotEnded(played, outcome);
  });

  it.each<[string, string, IPlayOptions["children"] & object, string]>([
    ["refused by the policy (DENY)", "forbidden", {}, "denied"],
    ["rejected by the human", "ask", { "s0-c0": [approval("rejected", { approver: "bob" })] }, "rejected"],
    ["expired", "ask", { "s0-c0": [approval("expired")] }, "expired"],
    [
      "refused on an edit (design decision D109: an edited input is decided again)",
      "ask",
      { "s0-c0": [approval("refused", { verdictOnEdit: EToolCallVerdict.DENY })] },
      "denied",
    ],
  ])("a call of an endsRun tool %s never ends the run", async (_name, reason, children, outcome) => {
    const played = await playRun({
      tools: defaultTools,
      replies: [callTools([call("handover", { reason })]), answer("I could not hand over.")],
      children,
    });
    expectNotEnded(played, outcome);
  });

  function expectNotEnded(played: Awaited<ReturnType<typeof playRun>>, outcome: string) {
    expect(resultOf(played, "s0-c0").outcome).toBe(outcome);
    expect(resultOf(played, "s0-c0")).not.toHaveProperty("endedRun");
    expect(played.trace.at(-1)).toBe("model");
    expect(played.plans[1]?.final).toBe(false);
    expect(played.response.stopReason).toBe("answered");
    expect(played.response).not.toHaveProperty("endedByTool");
  }
});

describe("maxSteps and how a run is answered", () => {
  it("maxSteps reached: final-model with stopReason max_steps", async () => {
    const played = await playRun({
      tools: defaultTools,
      request: { maxSteps: 2 },
      replies: [callTools([call("note")]), callTools([call("note")]), answer("Enough.")],
      pauseBefore: (action) => action.type === "call-model" && action.final,
    });
    expect(played.state).toMatchObject({ phase: "final-model", stopReason: "max_steps", stepIndex: 2 });
  });

  it("endsRun on the last allowed step: ended_by_tool wins over max_steps", async () => {
    const played = await playRun({
      tools: defaultTools,
      request: { maxSteps: 1 },
      replies: [callTools([call("handover", { reason: "x" })]), answer("Handed over.")],
      children: { "s0-c0": [toolOk({ accepted: true }, { endsRun: true })] },
    });
    expect(played.response).toMatchObject({ stopReason: "ended_by_tool", endedByTool: "handover" });
  });

  it("a reply without tool calls completes the run: stopReason answered, its text the answer", async () => {
    const played = await playRun({ tools: defaultTools, replies: [answer("Order 42 was refunded.")] });
    expect(played.state).toMatchObject({
      status: "completed",
      phase: "finished",
      stopReason: "answered",
      finalText: "Order 42 was refunded.",
      finishedAt: played.state.updatedAt,
    });
    expect(played.state.messages.at(-1)).toEqual({ role: "assistant", content: "Order 42 was refunded." });
  });

  it("a reply without text nor tool calls answers an empty text", async () => {
    const played = await playRun({ tools: defaultTools, replies: [answer(null)] });
    expect(played.response.text).toBe("");
    expect(played.state.messages.at(-1)).toEqual({ role: "assistant", content: "" });
  });

  it.each([
    ["after maxSteps", { maxSteps: 1 }, "max_steps"],
    ["after endsRun", { maxSteps: 4 }, "ended_by_tool"],
  ])(
    "a reply in the final phase that (wrongly) calls tools finishes with its text, ignoring them (%s)",
    async (_name, request, stopReason) => {
      const played = await playRun({
        tools: defaultTools,
        request,
        replies: [
          callTools([call("handover", { reason: "x" })]),
          callTools([call("note"), call("refund", { amount: 5 })], { text: "Final words." }),
        ],
        children: { "s0-c0": [toolOk({ accepted: true }, { endsRun: stopReason === "ended_by_tool" })] },
      });
      expect(played.response).toMatchObject({
        status: "completed",
        text: "Final words.",
        stopReason,
        steps: 2,
      });
      expect(played.state.toolResults).toHaveLength(1);
      expect(played.dispatched).toEqual(["s0-c0"]);
      expect(played.state.messages.at(-1)).toEqual({ role: "assistant", content: "Final words." });
      expect(played.state.step).toBeUndefined();
    },
  );
});
