import { describe, expect, it } from "vitest";
import { EToolCallVerdict, type IToolResultPart, type TPlannedCall } from "../../../src/contracts/index.js";
import { createRunState, repeatedEffectsOf, type TRunState } from "../../../src/engine/internals.js";

/** A settled call of step `step` with this outcome (and verdict / decision when given). */
function result(
  step: number,
  index: number,
  toolName: string,
  outcome: IToolResultPart["outcome"],
  extra: Partial<IToolResultPart> = {},
): IToolResultPart {
  return {
    toolCallId: `t${step}${index}`,
    callId: `run-1-s${step}-c${index}`,
    toolName,
    step,
    input: {},
    text: "",
    isError: outcome !== "ok",
    outcome,
    durationMs: 1,
    ...extra,
  } as IToolResultPart;
}

function stateWith(
  results: IToolResultPart[],
  current?: { stepIndex: number; calls: TPlannedCall[] },
): TRunState {
  const created = createRunState({
    runId: "run-1",
    threadId: "thread-1",
    request: { input: "hi", userContext: { userId: "u" }, additionalTools: [], maxSteps: 9 },
    requestHash: "h",
    now: 0,
  });
  return {
    ...created,
    toolResults: results,
    ...(current ? { step: { ...current, assistantText: null } } : {}),
  };
}

const readOnly = (name: string) => name === "lookup";
const names = (state: TRunState, from = { step: 0, index: 0 }) =>
  repeatedEffectsOf(state, from, readOnly).map((call) => call.callId);

describe("repeatedEffectsOf: the calls a replay would run again that may have changed the world", () => {
  it.each<[string, IToolResultPart, boolean]>([
    ["an executed call (ok)", result(0, 0, "pay", "ok"), true],
    ["a call whose tool threw", result(0, 0, "pay", "error"), true],
    ["a call past its timeout (it may have gone through)", result(0, 0, "pay", "timeout"), true],
    ["a read-only tool's call", result(0, 0, "lookup", "ok"), false],
    ["a denied call", result(0, 0, "pay", "denied", { verdict: EToolCallVerdict.DENY }), false],
    ["a rejected call", result(0, 0, "pay", "rejected"), false],
    ["an input the schema refused", result(0, 0, "pay", "invalid_input"), false],
    ["a call cut while waiting for its verdict", result(0, 0, "pay", "cancelled"), false],
    ["a call cut while running", result(0, 0, "pay", "cancelled", { verdict: EToolCallVerdict.ALLOW }), true],
    [
      "an approved call cut before it ended",
      result(0, 0, "pay", "cancelled", {
        verdict: EToolCallVerdict.NEEDS_APPROVAL,
        approval: { approvalId: "a", decision: "approved", decidedAt: 1 },
      }),
      true,
    ],
  ])("%s: %s", (_what, part, repeated) => {
    expect(names(stateWith([part]))).toEqual(repeated ? [part.callId] : []);
  });

  it("counts from the replay point: its step's calls from its index on, and every later step", () => {
    const state = stateWith([
      result(0, 0, "pay", "ok"),
      result(1, 0, "pay", "ok"),
      result(1, 1, "pay", "ok"),
      result(2, 0, "pay", "ok"),
    ]);
    expect(names(state)).toHaveLength(4);
    expect(names(state, { step: 1, index: 1 })).toEqual(["run-1-s1-c1", "run-1-s2-c0"]);
  });

  it("counts a call of the current step that runs now, not one still waiting for its verdict", () => {
    const planned = (index: number, state: TPlannedCall["state"]): TPlannedCall => ({
      index,
      toolCallId: `c${index}`,
      callId: `run-1-s0-c${index}`,
      toolName: "pay",
      argumentsJson: "{}",
      state,
    });
    const state = stateWith([], { stepIndex: 0, calls: [planned(0, "dispatched"), planned(1, "pending")] });
    expect(names(state)).toEqual(["run-1-s0-c0"]);
  });
});
