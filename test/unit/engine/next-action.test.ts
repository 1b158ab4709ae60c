import { describe, expect, it } from "vitest";
import {
  createRunState,
  nextAction,
  type TRunAction,
  type TRunState,
} from "../../../src/engine/internals.js";
import { runId, runRequest, threadId } from "./driver.js";
import { defaultTools } from "./engine-tools.js";

/** nextAction on the states the step-by-step tables do not reach on their own. */
describe("nextAction: the engine's answer to where the run is", () => {
  const base = createRunState({ runId, threadId, request: runRequest(), requestHash: "h", now: 1 });

  it.each<[string, Partial<TRunState>, TRunAction]>([
    ["queued, before the first model call", {}, { type: "call-model", final: false }],
    ["running, phase model", { status: "running" }, { type: "call-model", final: false }],
    [
      "phase final-model: the last call, without tools",
      { status: "running", phase: "final-model" },
      { type: "call-model", final: true },
    ],
    [
      "phase tools without a step: the model is asked again",
      { status: "running", phase: "tools" },
      { type: "call-model", final: false },
    ],
    ["phase finished", { status: "running", phase: "finished" }, { type: "finished" }],
    ["a terminal status, whatever the phase", { status: "cancelled", phase: "model" }, { type: "finished" }],
    ["timed_out", { status: "timed_out", phase: "final-model" }, { type: "finished" }],
    ["failed", { status: "failed", phase: "tools" }, { type: "finished" }],
  ])("%s", (_name, patch, expected) => {
    expect(nextAction({ ...base, ...patch }, defaultTools)).toEqual(expected);
  });
});
