import { describe, expect, it } from "vitest";
import type { TChatMessage } from "../../../src/contracts/index.js";
import {
  forkRunState,
  type IForkStart,
  type TRunState,
  toolCallsLeft,
} from "../../../src/engine/internals.js";
import {
  answer,
  approval,
  approvedAndRan,
  call,
  callTools,
  type IPlayOptions,
  keyOf,
  playRun,
  runId,
} from "./driver.js";
import { defaultTools } from "./engine-tools.js";

/** The fork's id has the original's length, so the driver's `s<step>-c<index>` keys read both. */
const forkId = "run-2";
const history: TChatMessage[] = [
  { role: "user", content: "Earlier question." },
  { role: "assistant", content: "Earlier answer." },
];

/** Two steps: a note and a lookup, then a refund beside a note, then the answer. */
const twoSteps: IPlayOptions = {
  tools: defaultTools,
  history,
  // Answered by a named model: the run records each reply's model and tokens (modelReplies).
  replies: [
    callTools([call("note", { value: "a" }), call("lookup", { orderId: "42" })], { text: "Checking." }),
    callTools([call("note", { value: "b" }), call("refund", { amount: 50 })]),
    answer("Refunded."),
  ].map((reply) => ({ ...reply, model: "default" })),
};

/** A call a human approved (with an edit), then a note, then the answer. */
const approvedFirst: IPlayOptions = {
  tools: defaultTools,
  replies: [callTools([call("approve_me", { amount: 3 })]), callTools([call("note")]), answer("Paid.")],
  children: { "s0-c0": [approvedAndRan({ paid: 4 }, { editedInput: { amount: 4 } })] },
};

/** Stopped while its first call waits for a human and the second runs. */
const waiting: IPlayOptions = {
  tools: defaultTools,
  replies: [callTools([call("approve_me", { amount: 3 }), call("note", { value: "x" })])],
  pauseBefore: (action) => action.type === "wait-children",
};

/** A step-1 call to a tool offered on the first step only: settled as hidden at once. */
const hiddenLater: IPlayOptions = {
  tools: defaultTools,
  replies: [callTools([call("note")]), callTools([call("classify", { value: "v" })]), answer("Done.")],
};

interface IForkCase {
  name: string;
  original: IPlayOptions;
  /** The original's call, `s<step>-c<index>`. */
  from: string;
  edit?: { input: unknown };
  /** Refused with this code and nothing else checked. */
  refused?: string;
  /** The fork's step: each call's key, state and arguments. */
  step?: Array<[string, string, string?]>;
  /** Results taken over from earlier steps, by key. */
  results?: string[];
  /** Messages before the step (the user's input included). */
  messages?: number;
  /** Model calls and tokens counted so far (each scripted reply is 15 tokens). */
  modelCalls?: number;
  /** Playing the fork on: its actions and what it parked. */
  trace?: string[];
  parked?: string[];
  /** The fork's last answer, given as the model's replies from the fork on. */
  replies?: IPlayOptions["replies"];
  children?: IPlayOptions["children"];
}

const cases: IForkCase[] = [
  {
    name: "from a step's second call: the first call's result and the earlier step are taken over",
    original: twoSteps,
    from: "s1-c1",
    step: [
      ["s1-c0", "settled", '{"value":"b"}'],
      ["s1-c1", "pending", '{"amount":50}'],
    ],
    results: ["s0-c0", "s0-c1"],
    messages: 4,
    modelCalls: 2,
    replies: [answer("Refunded again.")],
    trace: ["decide c1", "wait c1", "settle", "model"],
    parked: [],
  },
  {
    name: "from a step's first call: it and the calls after it are planned again",
    original: twoSteps,
    from: "s0-c0",
    step: [
      ["s0-c0", "pending", '{"value":"a"}'],
      ["s0-c1", "pending", '{"orderId":"42"}'],
    ],
    results: [],
    messages: 1,
    modelCalls: 1,
    replies: [answer("Once more.")],
    trace: ["decide c0 c1", "wait c0 c1", "settle", "model"],
    parked: [],
  },
  {
    name: "an edited input replaces the call's arguments; the policy decides it again (a large refund parks)",
    original: twoSteps,
    from: "s1-c1",
    edit: { input: { amount: 500 } },
    step: [
      ["s1-c0", "settled", '{"value":"b"}'],
      ["s1-c1", "pending", '{"amount":500}'],
    ],
    replies: [answer("Asked a human.")],
    trace: ["decide c1", "wait c1", "settle", "model"],
    parked: ["s1-c1"],
  },
  {
    name: "an edit the policy denies settles as denied, and the model reads it",
    original: twoSteps,
    from: "s1-c1",
    edit: { input: { amount: 5000 } },
    replies: [answer("It was refused.")],
    trace: ["decide c1", "settle", "model"],
    parked: [],
  },
  {
    name: "before an approval: the call waits for a human again",
    original: approvedFirst,
    from: "s0-c0",
    step: [["s0-c0", "pending", '{"amount":4}']],
    results: [],
    replies: [answer("Paid again.")],
    trace: ["decide c0", "wait c0", "settle", "model"],
    parked: ["s0-c0"],
  },
  {
    name: "after an approval: the approved call's result (its edit and decision) is taken over, nothing parks",
    original: approvedFirst,
    from: "s1-c0",
    step: [["s1-c0", "pending", "{}"]],
    results: ["s0-c0"],
    messages: 3,
    replies: [answer("Noted.")],
    trace: ["decide c0", "wait c0", "settle", "model"],
    parked: [],
  },
  {
    name: "from the second call of a step still in flight: the first, still parked, is not taken over",
    original: waiting,
    from: "s0-c1",
    refused: "TG_CALL_NOT_FORKABLE",
  },
  {
    name: "from the first call of a step still in flight: both calls are planned again",
    original: waiting,
    from: "s0-c0",
    step: [
      ["s0-c0", "pending", '{"amount":3}'],
      ["s0-c1", "pending", '{"value":"x"}'],
    ],
    messages: 1,
    replies: [answer("Done.")],
    children: { "s0-c0": [approvedAndRan({ paid: 3 })] },
    trace: ["decide c0 c1", "wait c0 c1", "settle", "model"],
    parked: ["s0-c0"],
  },
  {
    name: "a call hidden at its step is settled as hidden again without an edit",
    original: hiddenLater,
    from: "s1-c0",
    step: [["s1-c0", "settled", '{"value":"v"}']],
    replies: [answer("Hidden.")],
    trace: ["settle", "model"],
  },
  {
    name: "an edit of a hidden call cannot run",
    original: hiddenLater,
    from: "s1-c0",
    edit: { input: {} },
    refused: "TG_CALL_NOT_FORKABLE",
  },
  {
    name: "an edit the schema refuses",
    original: twoSteps,
    from: "s1-c1",
    edit: { input: { amount: "x" } },
    refused: "TG_FORK_INVALID_INPUT",
  },
  {
    name: "an edit that is not an object",
    original: twoSteps,
    from: "s0-c1",
    edit: { input: 42 },
    refused: "TG_FORK_INVALID_INPUT",
  },
  { name: "a call the run does not have", original: twoSteps, from: "s7-c0", refused: "TG_CALL_NOT_FOUND" },
];

function forkStart(original: TRunState, from: string, edit?: { input: unknown }): IForkStart {
  return {
    runId: forkId,
    threadId: "thread-2",
    request: { ...original.request, forkOf: { runId, callId: `${runId}-${from}` } },
    requestHash: "hash-2",
    now: 1_800_000_000_000,
    fromCallId: `${runId}-${from}`,
    ...(edit ? { edit } : {}),
  };
}

describe("forkRunState: a fork's first state from the stored run", () => {
  it.each(cases)("$name", async (fork) => {
    const original = (await playRun(fork.original)).state;
    const started = await forkRunState(original, forkStart(original, fork.from, fork.edit), defaultTools);
    if (fork.refused) {
      expect(started).toMatchObject({ ok: false, refusal: { code: fork.refused } });
      return;
    }
    if (!started.ok) throw new Error(`refused: ${started.refusal.message}`);
    const state = started.state;
    expect(state).toMatchObject({
      runId: forkId,
      status: "queued",
      phase: "tools",
      ownsThread: true,
      history: original.history,
    });
    // Every call of the fork has an id of the fork.
    for (const part of state.toolResults) expect(part.callId.startsWith(`${forkId}-`)).toBe(true);
    for (const planned of state.step!.calls) expect(planned.callId.startsWith(`${forkId}-`)).toBe(true);
    if (fork.step) {
      expect(
        state.step!.calls.map((planned) => [keyOf(planned), planned.state, planned.argumentsJson]),
      ).toEqual(fork.step);
    }
    if (fork.results) expect(state.toolResults.map(keyOf)).toEqual(fork.results);
    if (fork.messages !== undefined) {
      expect(state.messages).toEqual(original.messages.slice(0, fork.messages));
    }
    if (fork.modelCalls !== undefined) {
      expect(state.modelCalls).toBe(fork.modelCalls);
      expect(state.usage.totalTokens).toBe(15 * fork.modelCalls);
    }
    // Results taken over are the original's own, under the fork's ids, each naming the call it came from.
    for (const part of state.toolResults) {
      const before = original.toolResults.find((candidate) => keyOf(candidate) === keyOf(part));
      expect(part).toEqual({ ...before, callId: part.callId, takenFrom: { runId, callId: before?.callId } });
    }
    // So are the model replies up to the fork's step.
    for (const reply of state.modelReplies ?? []) expect(reply.takenFrom).toEqual({ runId });
    // The forked call's input is the fork request's when it gave one, marked with the original's input.
    const forked = state.step!.calls.find((planned) => planned.callId === `${forkId}-${fork.from}`);
    if (fork.edit) expect(forked?.forkEdit).toBeDefined();
    else expect(forked?.forkEdit).toBeUndefined();
    if (!fork.replies) return;
    const played = await playRun({
      tools: defaultTools,
      start: state,
      replies: fork.replies,
      ...(fork.children ? { children: fork.children } : {}),
    });
    expect(played.trace).toEqual(fork.trace);
    if (fork.parked) expect(played.parked).toEqual(fork.parked);
    expect(played.state.status).toBe("completed");
    // The model is asked only from the fork's step on: the earlier replies are taken over.
    expect(played.plans[0]!.messages.slice(0, original.history.length)).toEqual(original.history);
  });

  it("a denied edit reaches the model as a refusal; the original's earlier results stay what they were", async () => {
    const original = (await playRun(twoSteps)).state;
    const started = await forkRunState(
      original,
      forkStart(original, "s1-c1", { input: { amount: 5000 } }),
      defaultTools,
    );
    if (!started.ok) throw new Error("refused");
    const played = await playRun({ tools: defaultTools, start: started.state, replies: [answer("No.")] });
    const refund = played.state.toolResults.find((part) => keyOf(part) === "s1-c1")!;
    expect(refund).toMatchObject({ outcome: "denied", input: { amount: 5000 }, isError: true });
    expect(played.state.toolResults.slice(0, 3)).toEqual(
      started.state.toolResults.concat(started.state.step!.calls[0]!.result!),
    );
  });

  it("keeps the budget where the original had it: calls past the tool-call budget are refused again", async () => {
    const original = (
      await playRun({ ...twoSteps, request: { maxToolCalls: 3 }, replies: [...twoSteps.replies] })
    ).state;
    const started = await forkRunState(original, forkStart(original, "s1-c0"), defaultTools);
    if (!started.ok) throw new Error("refused");
    const [note, refund] = started.state.step!.calls;
    expect(note!.state).toBe("pending");
    expect(refund!.result?.errorCode).toBe(original.toolResults[3]!.errorCode);
    expect(toolCallsLeft({ ...started.state, step: undefined })).toBe(1);
  });

  it("a run that ended (cancelled mid-step) forks from any call it settled", async () => {
    const original = (
      await playRun({
        ...twoSteps,
        stopBefore: (action) => (action.type === "settle-step" ? "cancelled" : undefined),
      })
    ).state;
    expect(original.status).toBe("cancelled");
    const started = await forkRunState(original, forkStart(original, "s0-c1"), defaultTools);
    expect(started.ok).toBe(true);
  });

  it("an approval report names the fork's call, not the original's", async () => {
    const original = (await playRun(approvedFirst)).state;
    const started = await forkRunState(original, forkStart(original, "s0-c0"), defaultTools);
    if (!started.ok) throw new Error("refused");
    const played = await playRun({
      tools: defaultTools,
      start: started.state,
      replies: [answer("Rejected.")],
      children: { "s0-c0": [approval("rejected", { approver: "bob" })] },
    });
    expect(played.state.toolResults[0]).toMatchObject({
      callId: `${forkId}-s0-c0`,
      outcome: "rejected",
      approval: { approvalId: `${forkId}-s0-c0-approval`, approver: "bob" },
    });
  });

  it("an original without per-model replies still forks (one model call per step counted)", async () => {
    const { modelReplies: _none, ...original } = (await playRun(twoSteps)).state;
    const started = await forkRunState(original, forkStart(original, "s1-c1"), defaultTools);
    if (!started.ok) throw new Error("refused");
    expect(started.state.modelCalls).toBe(2);
    expect(started.state.modelReplies).toBeUndefined();
  });
});
