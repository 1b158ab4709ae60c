import { describe, expect, it } from "vitest";
import {
  finishRun,
  isTerminal,
  responseOf,
  type TRunState,
  terminalStatuses,
} from "../../../src/engine/internals.js";
import { answer, call, callTools, playRun, runId, threadId, toolOk } from "./driver.js";
import { defaultTools } from "./engine-tools.js";

describe("responseOf: the IGatewayResponse of DESIGN §3 step 7", () => {
  it("a completed run: exactly runId, threadId, status, text, toolResults, stopReason, steps, usage", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [callTools([call("note")]), answer("Done.")],
    });
    expect(played.response).toEqual({
      runId,
      threadId,
      status: "completed",
      text: "Done.",
      toolResults: played.state.toolResults,
      stopReason: "answered",
      steps: 2,
      usage: { promptTokens: 20, completionTokens: 10, totalTokens: 30 },
    });
    expect(Object.keys(played.response)).not.toContain("endedByTool");
    expect(Object.keys(played.response)).not.toContain("error");
  });

  it("a run a tool ended names the tool", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [callTools([call("handover", { reason: "x" })]), answer("Handed over.")],
      children: { "s0-c0": [toolOk({ accepted: true }, { endsRun: true })] },
    });
    expect(played.response).toMatchObject({ endedByTool: "handover", stopReason: "ended_by_tool", steps: 2 });
  });

  it("a failed run carries its error; stopReason failed", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [callTools([call("note")])],
      // The model fails on the second call (the worker finishes the run as failed).
      pauseBefore: (action, state) => action.type === "call-model" && state.modelCalls === 1,
    });
    const failed = finishRun({ ...played.state, stopReason: "failed" }, "failed", 42, {
      code: "TG_MODEL_FAILED",
      message: "The model request failed.",
    });
    expect(failed).toMatchObject({ status: "failed", phase: "finished", finishedAt: 42, updatedAt: 42 });
    expect(responseOf(failed)).toEqual({
      runId,
      threadId,
      status: "failed",
      text: "",
      toolResults: played.state.toolResults,
      stopReason: "failed",
      steps: 1,
      usage: played.state.usage,
      error: { code: "TG_MODEL_FAILED", message: "The model request failed." },
    });
  });

  it.each<[string, Partial<TRunState>, string]>([
    ["failed without a stop reason", { status: "failed" }, "failed"],
    ["completed without a stop reason", { status: "completed" }, "answered"],
  ])("a state %s: stopReason %s", async (_name, patch, stopReason) => {
    const played = await playRun({ tools: defaultTools, replies: [answer("Hi.")] });
    const { stopReason: _dropped, ...rest } = played.state;
    expect(responseOf({ ...rest, ...patch }).stopReason).toBe(stopReason);
  });

  it("finishRun without an error sets none", async () => {
    const played = await playRun({ tools: defaultTools, replies: [answer("Hi.")] });
    expect(finishRun(played.state, "completed", 1)).not.toHaveProperty("error");
  });

  it("isTerminal: completed, failed, cancelled, timed_out", () => {
    expect([...terminalStatuses]).toEqual(["completed", "failed", "cancelled", "timed_out"]);
    for (const status of ["queued", "running", "waiting"] as const)
      expect(isTerminal({ status })).toBe(false);
    for (const status of ["completed", "failed", "cancelled", "timed_out"] as const) {
      expect(isTerminal({ status })).toBe(true);
    }
  });
});
