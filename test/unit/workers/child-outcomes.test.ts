import { describe, expect, it } from "vitest";
import { childOutcomesOf } from "../../../src/workers/child-outcomes.js";

/** A run job's `processed` hash as BullMQ stores it: return values as JSON, keyed by job key. */
function stored(values: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, JSON.stringify(value)]));
}

const execution = {
  isError: false,
  text: "ok",
  output: { ok: true },
  outcome: "ok",
  durationMs: 3,
  endsRun: false,
  input: {},
};

describe("child return values are validated, not cast (issue 9)", () => {
  it("a valid tool result and approval outcome are read", async () => {
    const outcomes = childOutcomesOf(
      stored({
        "p:tools:run-s0-c0": {
          schemaVersion: 1,
          callId: "run-s0-c0",
          execution,
          scheduledAt: 1,
          startedAt: 2,
          finishedAt: 3,
        },
        "p:approvals:run-s0-c1-approval": {
          schemaVersion: 1,
          callId: "run-s0-c1",
          approval: { approvalId: "run-s0-c1-approval", decision: "refused", decidedAt: 4 },
        },
      }),
      {},
      "p",
    );
    expect(outcomes).toEqual([
      { kind: "tool", callId: "run-s0-c0", execution },
      {
        kind: "approval",
        callId: "run-s0-c1",
        approval: { approvalId: "run-s0-c1-approval", decision: "refused", decidedAt: 4 },
      },
    ]);
  });

  it.each<[string, string, unknown, string]>([
    [
      "a tool result without its text",
      "p:tools:run-s0-c0",
      {
        schemaVersion: 1,
        callId: "run-s0-c0",
        execution: { ...execution, text: undefined },
        scheduledAt: 1,
        startedAt: 2,
        finishedAt: 3,
      },
      "run-s0-c0",
    ],
    [
      "a tool result of a later version",
      "p:tools:run-s0-c0",
      { schemaVersion: 2, callId: "run-s0-c0" },
      "run-s0-c0",
    ],
    [
      "an approval with an unknown decision",
      "p:approvals:run-s0-c1-approval",
      {
        schemaVersion: 1,
        callId: "run-s0-c1",
        approval: { approvalId: "a", decision: "maybe", decidedAt: 1 },
      },
      "run-s0-c1",
    ],
    ["not an object", "p:tools:run-s0-c0", "garbage", "run-s0-c0"],
  ])("%s becomes that call's job failure", async (_name, key, value, callId) => {
    const [outcome] = childOutcomesOf(stored({ [key]: value }), {}, "p");
    expect(outcome).toMatchObject({ kind: "job-failed", callId });
  });

  it("a stored value that is not JSON becomes that call's job failure", () => {
    const [outcome] = childOutcomesOf({ "p:tools:run-s0-c0": "{not json" }, {}, "p");
    expect(outcome).toMatchObject({ kind: "job-failed", callId: "run-s0-c0" });
  });

  it("a child that failed its attempts (an ignored dependency) is its call's job failure", () => {
    const outcomes = childOutcomesOf(
      {},
      { "p:tools:run-s0-c0": "boom", "p:approvals:run-s0-c1-approval": "gone" },
      "p",
    );
    expect(outcomes).toEqual([
      { kind: "job-failed", callId: "run-s0-c0", queue: "tools", reason: "boom" },
      { kind: "job-failed", callId: "run-s0-c1", queue: "approvals", reason: "gone" },
    ]);
  });
});
