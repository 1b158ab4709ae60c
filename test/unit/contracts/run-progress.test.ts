import { describe, expect, it } from "vitest";
import type { TPlannedCall, TRunState } from "../../../src/contracts/index.js";
import { runProgressOf, runProgressSchema } from "../../../src/contracts/index.js";
import { createRunState } from "../../../src/engine/index.js";

/*
 * A run's progress (what its page draws while it is unfinished) from each shape the stored state takes:
 * nothing yet, a step whose calls are in every state, results of steps before, and an old state without
 * model replies.
 */

const queued = createRunState({
  runId: "run_p",
  threadId: "thread_p",
  request: { input: "hi", userContext: { userId: "u-1" }, additionalTools: [], maxSteps: 5 },
  requestHash: "h",
  now: 1,
});

const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };
const settledResult = {
  toolCallId: "tc_0",
  callId: "run_p-s1-c0",
  toolName: "lookup",
  step: 1,
  input: { id: 1 },
  output: { found: true },
  text: '{"found":true}',
  isError: false,
  outcome: "ok" as const,
  durationMs: 12,
};
const call = (
  index: number,
  state: TPlannedCall["state"],
  extra: Partial<TPlannedCall> = {},
): TPlannedCall => ({
  index,
  toolCallId: `tc_${index}`,
  callId: `run_p-s1-c${index}`,
  toolName: ["lookup", "refund", "email", "note"][index] ?? "other",
  argumentsJson: '{"amount":150}',
  state,
  ...extra,
});

const cases: Array<{ name: string; state: TRunState; expected: object }> = [
  {
    name: "a queued run: nothing yet",
    state: queued,
    expected: { toolResults: [], modelReplies: [], openCalls: [], usage: queued.usage },
  },
  {
    name: "a step with a settled, a dispatched, a parked and a pending call",
    state: {
      ...queued,
      status: "running",
      stepIndex: 1,
      toolResults: [{ ...settledResult, callId: "run_p-s0-c0", step: 0 }],
      modelReplies: [
        { step: 0, model: "default", usage },
        { step: 1, model: "backup", usage },
      ],
      usage: { promptTokens: 20, completionTokens: 10, totalTokens: 30 },
      step: {
        stepIndex: 1,
        model: "backup",
        assistantText: null,
        calls: [
          call(0, "settled", { result: settledResult }),
          call(1, "dispatched"),
          call(2, "parked", { approvalId: "apv_2", argumentsJson: "not json" }),
          call(3, "pending", { argumentsJson: "" }),
        ],
      },
    },
    expected: {
      toolResults: [
        { callId: "run_p-s0-c0", step: 0 },
        { callId: "run_p-s1-c0", step: 1 },
      ],
      modelReplies: [{ model: "default" }, { model: "backup" }],
      usage: { totalTokens: 30 },
      openCalls: [
        { callId: "run_p-s1-c1", toolName: "refund", state: "dispatched", input: { amount: 150 } },
        { callId: "run_p-s1-c2", toolName: "email", state: "parked", approvalId: "apv_2", input: "not json" },
        { callId: "run_p-s1-c3", toolName: "note", state: "pending", input: {} },
      ],
    },
  },
  {
    name: "a state saved before named models: no model replies",
    state: { ...queued, status: "running", modelCalls: 1, modelReplies: undefined },
    expected: { modelReplies: [] },
  },
];

describe("runProgressOf", () => {
  for (const { name, state, expected } of cases) {
    it(name, () => {
      const progress = runProgressOf(state);
      expect(progress).toMatchObject(expected);
      // What the API sends passes the schema the OpenAPI document shows.
      expect(runProgressSchema.parse(progress)).toEqual(progress);
    });
  }
});
