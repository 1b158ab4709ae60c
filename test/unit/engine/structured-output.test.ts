import { describe, expect, it } from "vitest";
import {
  createRunState,
  decideOutput,
  modelReplyTransition,
  planModelRequest,
  type TOutputDecision,
  type TRunRequest,
} from "../../../src/engine/internals.js";
import { outputCheckerOf, outputSpecOf } from "../../../src/output/index.js";
import { answer, answerCut, call, callTools, defaultUsage, playRun, runRequest } from "./driver.js";
import { defaultTools } from "./engine-tools.js";

/** A refund decision: an object with a number and an enum, closed. */
const decisionSchema = {
  type: "object",
  properties: { amount: { type: "number" }, verdict: { enum: ["refund", "deny"] } },
  required: ["amount", "verdict"],
  additionalProperties: false,
};
const spec = (() => {
  const result = outputSpecOf({ schema: decisionSchema, name: "refund_decision" });
  if (!result.ok) throw new Error(result.problem.message);
  return result.spec;
})();
const checker = outputCheckerOf(spec);
const withOutput: Partial<TRunRequest> = { output: spec };

const valid = '{"amount":12,"verdict":"refund"}';
const wrongType = '{"amount":"twelve","verdict":"refund"}';
const notJson = "Sure! Refund 12.";

describe("decideOutput: what a final answer of a run with an output schema leads to", () => {
  it.each<[string, { text: string | null; finishReason?: string | null }, number, TOutputDecision["type"]]>([
    ["an answer the schema accepts is valid", { text: valid, finishReason: "stop" }, 0, "valid"],
    ["it is valid after a retry too", { text: valid }, 1, "valid"],
    ["an answer the schema refuses is retried while a retry is left", { text: wrongType }, 0, "retry"],
    ["an answer that is not JSON is retried like any invalid one", { text: notJson }, 0, "retry"],
    ["no text at all is retried", { text: null }, 0, "retry"],
    ["an answer refused after the one retry is invalid", { text: wrongType }, 1, "invalid"],
    [
      "an answer cut by finish_reason length is truncated",
      { text: '{"amount":1', finishReason: "length" },
      0,
      "truncated",
    ],
    [
      "an answer cut by length is truncated even when what arrived parses",
      { text: valid, finishReason: "length" },
      0,
      "truncated",
    ],
    [
      "truncated is never retried, whatever retries are left",
      { text: "{", finishReason: "length" },
      1,
      "truncated",
    ],
  ])("%s", (_rule, reply, retriesUsed, expected) => {
    expect(decideOutput(reply, checker, retriesUsed).type).toBe(expected);
  });

  it("a valid answer's value is the parsed JSON; an invalid one's issues name the path and the problem", () => {
    expect(decideOutput({ text: valid }, checker, 0)).toEqual({
      type: "valid",
      value: { amount: 12, verdict: "refund" },
    });
    expect(decideOutput({ text: '{"amount":"x","verdict":"maybe","extra":1}' }, checker, 1)).toEqual({
      type: "invalid",
      issues: [
        { path: "", message: 'must NOT have additional properties: "extra"' },
        { path: "/amount", message: "must be number" },
        { path: "/verdict", message: 'must be equal to one of the allowed values: ["refund","deny"]' },
      ],
    });
  });
});

describe("a run with an output schema, played through the run loop", () => {
  it("a valid answer completes the run with output beside text", async () => {
    const played = await playRun({ tools: defaultTools, replies: [answer(valid)], request: withOutput });
    expect(played.response).toMatchObject({
      status: "completed",
      text: valid,
      output: { amount: 12, verdict: "refund" },
      stopReason: "answered",
      steps: 1,
    });
  });

  it("an invalid answer is asked again once, the issues shown to the model in a system message", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [answer(wrongType), answer(valid)],
      request: withOutput,
    });
    expect(played.response).toMatchObject({ status: "completed", output: { amount: 12, verdict: "refund" } });
    expect(played.state.outputRetries).toBe(1);
    expect(played.response.steps).toBe(2);
    const second = played.plans[1];
    expect(second?.messages.slice(-2)).toEqual([
      { role: "assistant", content: wrongType },
      {
        role: "system",
        content: expect.stringMatching(
          /does not match the required JSON schema:\n- \/amount: must be number\n/,
        ),
      },
    ]);
    // The retry is the same step: the tools are offered again and the step index did not move.
    expect(second?.tools.map((tool) => tool.name)).toEqual(played.plans[0]?.tools.map((tool) => tool.name));
    expect(played.state.stepIndex).toBe(0);
  });

  it("an answer invalid again after the retry fails the run with TG_OUTPUT_INVALID and the issues in details", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [answer(notJson), answer(wrongType)],
      request: withOutput,
    });
    expect(played.response).toMatchObject({
      status: "failed",
      stopReason: "failed",
      text: wrongType,
      steps: 2,
      error: {
        code: "TG_OUTPUT_INVALID",
        details: { issues: [{ path: "/amount", message: "must be number" }] },
      },
    });
    expect(played.response.output).toBeUndefined();
  });

  it("an answer cut by finish_reason length fails with TG_OUTPUT_TRUNCATED at once, not retried", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [answerCut('{"amount":12,"verd')],
      request: withOutput,
    });
    expect(played.response).toMatchObject({
      status: "failed",
      steps: 1,
      error: { code: "TG_OUTPUT_TRUNCATED", details: { finishReason: "length" } },
    });
  });

  it("the retry is once per run: an invalid answer after tools that followed the retry fails the run", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [answer(wrongType), callTools([call("note")]), answer(notJson)],
      request: withOutput,
    });
    expect(played.response).toMatchObject({ status: "failed", error: { code: "TG_OUTPUT_INVALID" } });
    expect(played.trace).toEqual(["model", "model", "decide c0", "wait c0", "settle", "model"]);
  });

  it("tool calls are not checked: the run goes on, and the answer after them is checked", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [callTools([call("note")]), answer(valid)],
      request: withOutput,
    });
    expect(played.response).toMatchObject({ status: "completed", output: { amount: 12, verdict: "refund" } });
    expect(played.state.outputRetries).toBeUndefined();
  });

  it("the last step without tools (max_steps) is checked too and keeps its stop reason", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [callTools([call("note")]), answer(wrongType), answer(valid)],
      request: { ...withOutput, maxSteps: 1 },
    });
    expect(played.trace.filter((entry) => entry.startsWith("model"))).toEqual([
      "model",
      "model final",
      "model final",
    ]);
    expect(played.response).toMatchObject({
      status: "completed",
      stopReason: "max_steps",
      output: { amount: 12 },
    });
  });

  it("every model call of the run asks for the output; a run without one asks none", async () => {
    const asked = await playRun({
      tools: defaultTools,
      replies: [callTools([call("note")]), answer(valid)],
      request: withOutput,
    });
    expect(asked.plans.map((plan) => plan.output)).toEqual([spec, spec]);
    const free = await playRun({ tools: defaultTools, replies: [answer("free text")] });
    expect(free.plans.map((plan) => plan.output)).toEqual([undefined]);
  });

  it("a run without an output schema is not checked: free text, even cut by length, completes", async () => {
    const played = await playRun({ tools: defaultTools, replies: [answerCut("Half an ans")] });
    expect(played.response).toMatchObject({ status: "completed", text: "Half an ans" });
    expect(played.response.output).toBeUndefined();
  });
});

describe("model-replied says what a structured answer led to", () => {
  it.each<[string, string, string | undefined, TOutputDecision["type"]]>([
    ["valid", valid, "stop", "valid"],
    ["retry", wrongType, "stop", "retry"],
    ["truncated", "{", "length", "truncated"],
  ])("%s", async (_name, text, finishReason, expected) => {
    const state = {
      ...createRunState({
        runId: "run-1",
        threadId: "thread-1",
        request: runRequest(withOutput),
        requestHash: "h",
        now: 1,
      }),
      status: "running" as const,
    };
    const plan = planModelRequest(state, defaultTools);
    const reply = { text, toolCalls: [], usage: defaultUsage, finishReason };
    const transition = await modelReplyTransition(state, reply, plan, defaultTools, 2, {
      outputChecker: checker,
    });
    expect(transition.events[0]).toMatchObject({ type: "model-replied", data: { output: expected } });
  });
});
