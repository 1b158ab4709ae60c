import { describe, expect, it } from "vitest";
import { answer, call, callTools, playRun } from "./driver.js";
import { defaultTools } from "./engine-tools.js";

describe("steps: every model call counts, the last one without tools included", () => {
  it.each<[string, Parameters<typeof playRun>[0]["replies"], number, number, string]>([
    ["an answer at once", [answer("Hello.")], 4, 1, "answered"],
    ["one step of tools, then an answer", [callTools([call("note")]), answer("Done.")], 4, 2, "answered"],
    [
      "three steps of tools, then an answer",
      [callTools([call("note")]), callTools([call("note")]), callTools([call("note")]), answer("Done.")],
      4,
      4,
      "answered",
    ],
    [
      "maxSteps 2 reached: two steps with tools, then one without",
      [callTools([call("note")]), callTools([call("note")]), answer("Out of steps.")],
      2,
      3,
      "max_steps",
    ],
    [
      "maxSteps 1: one step with tools, then one without",
      [callTools([call("note")]), answer("Ok.")],
      1,
      2,
      "max_steps",
    ],
  ])("%s", async (_name, replies, maxSteps, steps, stopReason) => {
    const played = await playRun({ tools: defaultTools, replies, request: { maxSteps } });
    expect(played.response).toMatchObject({ status: "completed", steps, stopReason });
    expect(played.state.modelCalls).toBe(steps);
    expect(played.plans).toHaveLength(steps);
    expect(played.trace.filter((entry) => entry.startsWith("model"))).toHaveLength(steps);
  });

  it("stepIndex counts the settled steps with tools; the final model call adds none", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [callTools([call("note")]), callTools([call("note")]), answer("Done.")],
    });
    expect(played.state.stepIndex).toBe(2);
    expect(played.state.toolResults.map((result) => result.step)).toEqual([0, 1]);
    expect(played.trace).toEqual([
      "model",
      "decide c0",
      "wait c0",
      "settle",
      "model",
      "decide c0",
      "wait c0",
      "settle",
      "model",
    ]);
  });
});

describe("usage: summed over every model call", () => {
  it("adds prompt, completion and total tokens of each reply, the final call included", async () => {
    const played = await playRun({
      tools: defaultTools,
      request: { maxSteps: 1 },
      replies: [
        callTools([call("note")], { usage: { promptTokens: 100, completionTokens: 20, totalTokens: 120 } }),
        answer("Done.", { promptTokens: 7, completionTokens: 3, totalTokens: 10 }),
      ],
    });
    expect(played.response.usage).toEqual({ promptTokens: 107, completionTokens: 23, totalTokens: 130 });
  });

  it("starts at zero", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [answer("Hi.", { promptTokens: 0, completionTokens: 0, totalTokens: 0 })],
    });
    expect(played.response.usage).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
  });
});
