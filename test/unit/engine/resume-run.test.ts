import { describe, expect, it } from "vitest";
import type { TChatMessage, TToolExecutionRecord } from "../../../src/contracts/index.js";
import {
  cutCallsOf,
  failTransition,
  type IResumeStart,
  modelFailedTransition,
  resumeRunState,
  type TRunState,
  threadReleaseOf,
} from "../../../src/engine/internals.js";
import {
  answer,
  answerCut,
  call,
  callTools,
  type IPlayOptions,
  keyOf,
  playRun,
  runId,
  startTime,
} from "./driver.js";
import { defaultTools } from "./engine-tools.js";

/** The resume's id has the original's length, so the driver's `s<step>-c<index>` keys read both. */
const resumeId = "run-3";
const history: TChatMessage[] = [
  { role: "user", content: "Earlier question." },
  { role: "assistant", content: "Earlier answer." },
];

/** A note and a call a human must approve, side by side; then the answer. */
const noteBesideApproval: IPlayOptions = {
  tools: defaultTools,
  history,
  replies: [callTools([call("note", { value: "a" }), call("approve_me", { amount: 3 })]), answer("Done.")],
};

/** Two steps (a lookup, then a note), then the answer. */
const twoSteps: IPlayOptions = {
  tools: defaultTools,
  history,
  replies: [
    callTools([call("lookup", { orderId: "42" })]),
    callTools([call("note", { value: "b" })]),
    answer("Noted."),
  ].map((reply) => ({ ...reply, model: "default" })),
};

function resumeStart(original: TRunState, overrides: Partial<IResumeStart> = {}): IResumeStart {
  return {
    runId: resumeId,
    threadId: original.threadId,
    request: { ...original.request, resumeOf: runId },
    requestHash: "hash-3",
    now: startTime + 60_000,
    ownsThread: false,
    lateExecutions: new Map(),
    ...overrides,
  };
}

/** What a call's tool job returned after its run ended. */
function ranLate(output: unknown): TToolExecutionRecord {
  return {
    isError: false,
    text: JSON.stringify(output),
    output,
    outcome: "ok",
    durationMs: 30,
    endsRun: false,
    input: {},
  };
}

/** The run played until `pause`, then ended by `end` (what the worker's onFailed or the model does). */
async function endedWhere(
  options: IPlayOptions,
  pause: NonNullable<IPlayOptions["pauseBefore"]>,
  end: (state: TRunState) => TRunState,
): Promise<TRunState> {
  const paused = (await playRun({ ...options, pauseBefore: pause })).state;
  return end(paused);
}

async function resumed(original: TRunState, overrides: Partial<IResumeStart> = {}) {
  const started = await resumeRunState(original, resumeStart(original, overrides), defaultTools);
  if (!started.ok) throw new Error(`refused: ${started.refusal.message}`);
  return started;
}

describe("resumeRunState: a failed, timed-out or cancelled run continued as a new run", () => {
  it.each(["cancelled", "timed_out"] as const)(
    "%s beside a parked call: the call that ran after the ending is taken over, the parked one planned again",
    async (ending) => {
      const original = (
        await playRun({
          ...noteBesideApproval,
          stopBefore: (action) => (action.type === "wait-children" ? ending : undefined),
        })
      ).state;
      expect(original.status).toBe(ending);
      expect(cutCallsOf(original).map(keyOf)).toEqual(["s0-c0", "s0-c1"]);
      const { state, summary } = await resumed(original, {
        lateExecutions: new Map([[`${runId}-s0-c0`, ranLate({ value: "a" })]]),
      });
      expect(state).toMatchObject({ runId: resumeId, status: "queued", phase: "tools", stepIndex: 0 });
      // The step is as the model planned it, before the cancellation settled it: only the user's message.
      expect(state.messages).toEqual(original.messages.slice(0, 1));
      expect(state.toolResults).toEqual([]);
      expect(state.step!.calls.map((planned) => [keyOf(planned), planned.state])).toEqual([
        ["s0-c0", "settled"],
        ["s0-c1", "pending"],
      ]);
      expect(state.step!.calls[0]!.result).toMatchObject({ outcome: "ok", output: { value: "a" } });
      expect(summary).toEqual({
        resumeOf: runId,
        status: ending,
        step: 0,
        completedCalls: 1,
        retriedCalls: [
          { callId: `${resumeId}-s0-c1`, toolName: "approve_me", originalCallId: `${runId}-s0-c1` },
        ],
        lateResults: [{ callId: `${resumeId}-s0-c0`, toolName: "note" }],
        modelAskedAgain: false,
      });
      const played = await playRun({ tools: defaultTools, start: state, replies: [answer("Done again.")] });
      expect(played.trace).toEqual(["decide c1", "wait c1", "settle", "model"]);
      // Parked again for a human (the driver approves it and reports its run); the note is not run again.
      expect(played.parked).toEqual(["s0-c1"]);
      expect(played.dispatched).toEqual([]);
      expect(played.state.status).toBe("completed");
    },
  );

  it("failed at a model call: every step is taken over and the model is asked again", async () => {
    const original = await endedWhere(
      twoSteps,
      (action, state) => action.type === "call-model" && state.stepIndex === 2,
      (state) => modelFailedTransition(state, { code: "TG_MODEL_FAILED", message: "500" }, startTime).state,
    );
    expect(cutCallsOf(original)).toEqual([]);
    const { state, summary } = await resumed(original);
    expect(state).toMatchObject({ phase: "model", stepIndex: 2, modelCalls: 2, usage: original.usage });
    expect(state.messages).toEqual(original.messages);
    expect(state.toolResults.map((part) => part.callId)).toEqual([`${resumeId}-s0-c0`, `${resumeId}-s1-c0`]);
    for (const [at, part] of state.toolResults.entries())
      expect(part).toEqual({ ...original.toolResults[at], callId: part.callId });
    expect(state.executed).toEqual(["lookup", "note"]);
    expect(state).not.toHaveProperty("error");
    expect(state).not.toHaveProperty("finishedAt");
    expect(summary).toMatchObject({ status: "failed", step: 2, completedCalls: 2, modelAskedAgain: true });
    const played = await playRun({ tools: defaultTools, start: state, replies: [answer("Noted, finally.")] });
    expect(played.trace).toEqual(["model"]);
    expect(played.response).toMatchObject({ status: "completed", text: "Noted, finally.", steps: 3 });
  });

  it("failed for good mid-step (its job): the call still running is cut, the one that settled kept", async () => {
    const original = await endedWhere(
      {
        tools: defaultTools,
        replies: [callTools([call("note", { value: "x" }), call("approve_me", { amount: 3 })]), answer("ok")],
        // The note reports at the first wait; the approval has not been decided yet.
        children: { "s0-c1": [[]] },
      },
      (action, state) => action.type === "wait-children" && state.step!.calls[0]!.state === "settled",
      (state) => failTransition(state, { code: "TG_INTERNAL", message: "worker died" }, startTime).state,
    );
    expect(original.status).toBe("failed");
    expect(cutCallsOf(original)).toEqual([
      { callId: `${runId}-s0-c1`, toolName: "approve_me", approvalId: `${runId}-s0-c1-approval` },
    ]);
    const { state } = await resumed(original);
    expect(state.step!.calls.map((planned) => planned.state)).toEqual(["settled", "pending"]);
  });

  it("a structured answer that failed its schema is shown with its issues; a cut one is left out", async () => {
    const output = {
      schema: { type: "object", properties: { total: { type: "number" } }, required: ["total"] },
      name: "invoice",
    };
    const invalid = (
      await playRun({
        tools: defaultTools,
        request: { output },
        replies: [answer("ten"), answer("still ten")],
      })
    ).state;
    expect(invalid.error?.code).toBe("TG_OUTPUT_INVALID");
    const again = (await resumed(invalid)).state;
    expect(again.messages.slice(0, -1)).toEqual(invalid.messages);
    expect(again.messages.at(-1)).toMatchObject({ role: "system" });
    expect(again.outputRetries).toBe(1);
    const played = await playRun({ tools: defaultTools, start: again, replies: [answer('{"total":10}')] });
    expect(played.response).toMatchObject({ status: "completed", output: { total: 10 } });

    const truncated = (
      await playRun({ tools: defaultTools, request: { output }, replies: [answerCut('{"tot')] })
    ).state;
    expect(truncated.error?.code).toBe("TG_OUTPUT_TRUNCATED");
    expect((await resumed(truncated)).state.messages).toEqual(truncated.messages.slice(0, -1));
  });

  it("the last call without tools is asked again as the last one, with the reason it was", async () => {
    const original = await endedWhere(
      { ...twoSteps, request: { maxSteps: 2 } },
      (action) => action.type === "call-model" && action.final,
      (state) => modelFailedTransition(state, { code: "TG_MODEL_FAILED", message: "500" }, startTime).state,
    );
    const { state } = await resumed(original);
    expect(state).toMatchObject({ phase: "final-model", stopReason: "max_steps" });
  });

  it.each([
    ["completed", twoSteps, "completed"],
    [
      "not finished",
      { ...noteBesideApproval, pauseBefore: (action: { type: string }) => action.type === "wait-children" },
      "unfinished",
    ],
  ] as const)("refuses a run that %s", async (_what, options, reason) => {
    const original = (await playRun(options as IPlayOptions)).state;
    const started = await resumeRunState(original, resumeStart(original), defaultTools);
    expect(started).toMatchObject({
      ok: false,
      refusal: { code: "TG_RUN_NOT_RESUMABLE", details: { reason } },
    });
  });
});

describe("a resume on its run's thread", () => {
  const failedAtModel = () =>
    endedWhere(
      twoSteps,
      (action, state) => action.type === "call-model" && state.stepIndex === 2,
      (state) => modelFailedTransition(state, { code: "TG_MODEL_FAILED", message: "500" }, startTime).state,
    );

  it("reads the history its run read and appends only what follows the run's own messages", async () => {
    const original = await failedAtModel();
    const { state } = await resumed(original);
    expect(state).toMatchObject({
      history,
      historyCarried: true,
      messagesOnThread: original.messages.length,
    });
    const played = await playRun({ tools: defaultTools, start: state, replies: [answer("Finally.")] });
    expect(threadReleaseOf(played.state).messages).toEqual([{ role: "assistant", content: "Finally." }]);
  });

  it("a run that never started put nothing on its thread: the resume reads the thread when it starts", async () => {
    const original = (await playRun({ ...twoSteps, stopBefore: () => "cancelled" })).state;
    expect(original.startedAt).toBeDefined();
    const neverStarted: TRunState = { ...original, startedAt: undefined, history: [] };
    const { state } = await resumed(neverStarted);
    expect(state).toMatchObject({ history: [], phase: "model" });
    expect(state).not.toHaveProperty("historyCarried");
    expect(state.messagesOnThread).toBeUndefined();
  });

  it("on a thread of its own it keeps the history, with nothing to skip", async () => {
    const original = await failedAtModel();
    const { state } = await resumed(original, { ownsThread: true });
    expect(state).toMatchObject({ ownsThread: true, history });
    expect(state.historyCarried).toBeUndefined();
    expect(state.messagesOnThread).toBeUndefined();
  });

  it("a resume of a resume counts what both left on the thread", async () => {
    const first = { ...(await resumed(await failedAtModel())).state, status: "failed" as const };
    const started = {
      ...first,
      startedAt: startTime,
      messages: [...first.messages, { role: "assistant" as const, content: "x" }],
    };
    const { state } = await resumed(started);
    expect(state.messagesOnThread).toBe(started.messages.length);
    const notStarted = await resumed({ ...first, startedAt: undefined });
    expect(notStarted.state).toMatchObject({
      historyCarried: true,
      messagesOnThread: first.messagesOnThread,
    });
  });
});
