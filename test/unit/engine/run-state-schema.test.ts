import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EToolCallVerdict } from "../../../src/contracts/index.js";
import {
  applyChildResults,
  applyModelReply,
  nextAction,
  readRunState,
  runStateSchema,
  runStateVersion,
  settleStep,
  type TRunState,
} from "../../../src/engine/internals.js";
import { timeoutFailure } from "../../../src/tools/index.js";
import {
  answer,
  approval,
  approvedAndRan,
  call,
  callTools,
  defaultUsage,
  type IPlayOptions,
  jobFailed,
  playRun,
  rawCall,
  toolFailed,
  toolOk,
} from "./driver.js";
import { defaultTools } from "./engine-tools.js";

const { ALLOW, DENY } = EToolCallVerdict;

const scenarios: Array<[string, IPlayOptions]> = [
  ["an answer at once", { tools: defaultTools, replies: [answer("Hi.")], instructions: "Be brief." }],
  [
    "waves, approvals with edits, refusals, D72 failures (hidden tool, bad arguments), a timeout, a failed job",
    {
      tools: defaultTools,
      history: [{ role: "user", content: "Before." }],
      replies: [
        callTools(
          [
            call("lookup", { orderId: "42" }),
            call("refund", { amount: 500 }),
            call("check", { verdict: DENY, reason: "No." }),
            rawCall("note", "{oops"),
            call("nope"),
            call("classify"),
          ],
          { text: "Working on it." },
        ),
        callTools([call("approve_me", { amount: 3 }), call("refund", { amount: 200 }), call("note")]),
        callTools([call("approve_me", { amount: 4 }), call("approve_me", { amount: 5 }), call("note")]),
        answer("Done."),
      ],
      children: {
        "s0-c0": [toolOk({ total: 1 }, { text: "{…", truncatedChars: 3 })],
        "s0-c1": [approvedAndRan({ refunded: 80 }, { editedInput: { amount: 80 }, verdictOnEdit: ALLOW })],
        "s1-c0": [approval("rejected", { approver: "bob", comment: "No." })],
        "s1-c1": [
          approval("refused", { editedInput: { amount: 5000 }, verdictOnEdit: DENY, reason: "Too much." }),
        ],
        "s1-c2": [toolFailed(timeoutFailure(50), { durationMs: 50 })],
        "s2-c0": [approval("expired")],
        "s2-c1": [jobFailed("approvals")],
        "s2-c2": [jobFailed("tools")],
      },
    },
  ],
  [
    "ended by a tool",
    {
      tools: defaultTools,
      replies: [callTools([call("handover", { reason: "x" })]), answer("Handed over.")],
      children: { "s0-c0": [toolOk({ accepted: true }, { endsRun: true })] },
    },
  ],
  [
    "max steps",
    {
      tools: defaultTools,
      request: { maxSteps: 1 },
      replies: [callTools([call("note")]), answer("Enough.")],
    },
  ],
  [
    "cancelled while waiting",
    {
      tools: defaultTools,
      replies: [callTools([call("note"), call("approve_me", { amount: 1 })])],
      stopBefore: (action) => (action.type === "wait-children" ? "cancelled" : undefined),
    },
  ],
  [
    "timed out before the first model call",
    {
      tools: defaultTools,
      request: { timeoutMs: 5000, metadata: { ticket: 7 }, tools: ["note"], instructions: "Short." },
      replies: [],
      stopBefore: () => "timed_out",
    },
  ],
];

function roundTrip(state: TRunState): unknown {
  return JSON.parse(JSON.stringify(state));
}

describe("runStateSchema accepts every state the engine produces", () => {
  it.each(scenarios)("%s: every state, through JSON and back, parses to itself", async (_name, options) => {
    const played = await playRun(options);
    expect(played.states.length).toBeGreaterThan(1);
    for (const state of played.states) {
      const stored = roundTrip(state);
      const parsed = runStateSchema.safeParse(stored);
      expect(parsed.error).toBeUndefined();
      expect(parsed.data).toEqual(stored);
      expect(runStateSchema.safeParse(state).success).toBe(true);
    }
  });
});

describe("runStateSchema rejects what a worker must not misread", () => {
  it.each<[string, (state: Record<string, unknown>) => unknown]>([
    ["schemaVersion 3 (a later version)", (state) => ({ ...state, schemaVersion: 3 })],
    ["schemaVersion 1 (read through readRunState, upgraded)", (state) => ({ ...state, schemaVersion: 1 })],
    ["schemaVersion 0", (state) => ({ ...state, schemaVersion: 0 })],
    ['schemaVersion "1"', (state) => ({ ...state, schemaVersion: "1" })],
    ["no schemaVersion", ({ schemaVersion: _version, ...state }) => state],
    ["an unknown phase", (state) => ({ ...state, phase: "paused" })],
    ["an unknown status", (state) => ({ ...state, status: "done" })],
    ["negative usage", (state) => ({ ...state, usage: { ...defaultUsage, totalTokens: -1 } })],
  ])("%s", async (_name, corrupt) => {
    const played = await playRun({ tools: defaultTools, replies: [answer("Hi.")] });
    const stored = roundTrip(played.state) as Record<string, unknown>;
    expect(runStateSchema.safeParse(stored).success).toBe(true);
    expect(runStateSchema.safeParse(corrupt(stored)).success).toBe(false);
  });

  it("the current version is 2", () => {
    expect(runStateVersion).toBe(2);
  });
});

describe("readRunState: the current version and the one before, nothing else", () => {
  it("a current state is read as it is", async () => {
    const played = await playRun({ tools: defaultTools, replies: [answer("Hi.")] });
    const read = readRunState(roundTrip(played.state));
    expect(read).toEqual({ ok: true, state: roundTrip(played.state) });
  });

  it.each<[string, unknown]>([
    ["a later version", { schemaVersion: 3, runId: "run-1" }],
    ["no version", { runId: "run-1" }],
    ["not an object", "state"],
    ["null", null],
    ["the current version without its fields", { schemaVersion: 2, runId: "run-1" }],
    ["the previous version failing its schema", { schemaVersion: 1, runId: "run-1" }],
  ])("refuses %s", (_name, raw) => {
    const read = readRunState(raw);
    expect(read.ok).toBe(false);
  });

  it("version 1's refused edit (recorded as approved with verdictOnEdit DENY) is upgraded to refused", () => {
    const fixture = JSON.parse(
      readFileSync(
        new URL("../../../src/contracts/stored-versions/run-state-v1.fixture.json", import.meta.url),
        "utf8",
      ),
    ) as TRunState;
    const refused = {
      ...fixture.toolResults[1]!,
      approval: {
        approvalId: "a",
        decision: "approved" as const,
        decidedAt: 1,
        editedInput: { amount: 9000 },
        verdictOnEdit: DENY,
      },
    };
    const read = readRunState({ ...fixture, toolResults: [refused] });
    expect(read.ok && read.state.toolResults[0]?.approval?.decision).toBe("refused");
  });
});

describe("compatibility: a version-2 state (fixtures/run-state-v2.json)", () => {
  const fixture: unknown = JSON.parse(
    readFileSync(new URL("./fixtures/run-state-v2.json", import.meta.url), "utf8"),
  );

  it("parses with the current schema and is read as it is", () => {
    const parsed = runStateSchema.safeParse(fixture);
    expect(parsed.error).toBeUndefined();
    expect(parsed.data).toEqual(fixture);
    expect(readRunState(fixture)).toEqual({ ok: true, state: fixture });
  });
});

describe("compatibility: a version-1 state stored by an earlier build (src/contracts/stored-versions/run-state-v1.fixture.json)", () => {
  const fixture: unknown = JSON.parse(
    readFileSync(
      new URL("../../../src/contracts/stored-versions/run-state-v1.fixture.json", import.meta.url),
      "utf8",
    ),
  );

  it("is upgraded on read: the parsed inputs dropped (the raw arguments are kept), nothing else lost", () => {
    const read = readRunState(fixture);
    if (!read.ok) throw new Error(read.reason);
    expect(read.upgradedFrom).toBe(1);
    expect(read.state.schemaVersion).toBe(2);
    const parsed = runStateSchema.safeParse(read.state);
    expect(parsed.error).toBeUndefined();
    const old = fixture as { step: { calls: Array<Record<string, unknown>> } } & Record<string, unknown>;
    for (const [index, call] of read.state.step!.calls.entries()) {
      const { input: _parsed, ...rest } = old.step.calls[index]!;
      expect(call).toEqual(rest);
      expect(call).not.toHaveProperty("input");
    }
    const { schemaVersion: _old, step: _oldStep, ...unchanged } = old;
    expect(read.state).toMatchObject(unchanged);
  });

  it("the engine resumes it where it stopped and plays it to the end", async () => {
    const read = readRunState(fixture);
    if (!read.ok) throw new Error(read.reason);
    let state = read.state;
    const action = nextAction(state, defaultTools);
    expect(action.type).toBe("wait-children");
    const waiting = action.type === "wait-children" ? action.calls : [];
    expect(waiting.map((planned) => [planned.callId, planned.state])).toEqual([
      ["run-1-s1-c0", "dispatched"],
      ["run-1-s1-c1", "parked"],
      ["run-1-s1-c3", "dispatched"],
    ]);
    const [checked, parked, report] = waiting;
    state = applyChildResults(
      state,
      [
        toolOk({ checked: true })(checked!, 0),
        approval("rejected", { approver: "bob" })(parked!, 1_700_000_020_000),
        toolOk("report")(report!, 0),
      ],
      () => 60_000,
      1_700_000_021_000,
    );
    expect(nextAction(state, defaultTools)).toEqual({ type: "settle-step" });
    state = settleStep(state, 1_700_000_022_000);
    expect(nextAction(state, defaultTools)).toEqual({ type: "call-model", final: false });
    state = await applyModelReply(
      state,
      { text: "All done.", toolCalls: [], usage: defaultUsage },
      defaultTools,
      1_700_000_023_000,
    );
    expect(state).toMatchObject({ status: "completed", stopReason: "answered", modelCalls: 3, stepIndex: 2 });
    expect(state.toolResults.map((result) => result.outcome)).toEqual([
      "ok",
      "ok",
      "denied",
      "unknown_tool",
      "ok",
      "rejected",
      "timeout",
      "ok",
    ]);
    expect(state.executed).toEqual(["lookup", "refund", "check", "report"]);
    expect(runStateSchema.safeParse(roundTrip(state)).success).toBe(true);
  });
});
