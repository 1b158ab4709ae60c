import { describe, expect, it } from "vitest";
import { EToolCallVerdict } from "../../../src/contracts/index.js";
import {
  applyChildResults,
  createRunState,
  rawInputOf,
  type TChildOutcome,
} from "../../../src/engine/internals.js";
import {
  cancelledFailure,
  expiredFailure,
  jobFailedFailure,
  timeoutFailure,
  toolErrorLine,
} from "../../../src/tools/index.js";
import {
  answer,
  approval,
  approvedAndRan,
  call,
  callOf,
  callTools,
  jobFailed,
  playRun,
  resultOf,
  runId,
  runRequest,
  type TCallScript,
  threadId,
  toolFailed,
  toolOk,
} from "./driver.js";
import { defaultTools } from "./engine-tools.js";

const { ALLOW, DENY, NEEDS_APPROVAL } = EToolCallVerdict;

/** Plays one step of `calls`, the children reporting `script` for the first call, then an answer. */
function playOne(
  calls: ReturnType<typeof call>[],
  script: TCallScript,
  extra: Partial<Parameters<typeof playRun>[0]> = {},
) {
  return playRun({
    tools: defaultTools,
    replies: [callTools(calls), answer("Done.")],
    children: { "s0-c0": script },
    ...extra,
  });
}

describe("a tool job's report settles a dispatched call", () => {
  it("success: output, the text the model read, the duration; no status, no error code", async () => {
    const played = await playOne(
      [call("lookup", { orderId: "42" })],
      [toolOk({ total: 120 }, { durationMs: 37 })],
    );
    expect(resultOf(played, "s0-c0")).toEqual({
      toolCallId: "call_0_0",
      callId: `${runId}-s0-c0`,
      toolName: "lookup",
      step: 0,
      input: { orderId: "42" },
      output: { total: 120 },
      text: '{"total":120}',
      isError: false,
      outcome: "ok",
      verdict: ALLOW,
      durationMs: 37,
    });
  });

  it("a truncated output keeps truncatedChars", async () => {
    const played = await playOne(
      [call("note")],
      [toolOk("x".repeat(500), { text: "xxx…", truncatedChars: 497 })],
    );
    expect(resultOf(played, "s0-c0")).toMatchObject({
      text: "xxx…",
      truncatedChars: 497,
      output: "x".repeat(500),
    });
  });

  it.each([
    [
      "a tool error (dynaError): its status and code",
      {
        isError: true as const,
        text: toolErrorLine({ code: 4711, status: 409, userMessage: "The service said no." }),
        status: 409,
        errorCode: 4711,
        outcome: "error" as const,
      },
    ],
    ["a timeout", timeoutFailure(150)],
  ])(
    "%s: no output, the failure's status, code, outcome, text and the time it took",
    async (_name, failure) => {
      const played = await playOne([call("note")], [toolFailed(failure, { durationMs: 150 })]);
      const result = resultOf(played, "s0-c0");
      expect(result).toMatchObject({
        isError: true,
        text: failure.text,
        status: failure.status,
        errorCode: failure.errorCode,
        outcome: failure.outcome,
        durationMs: 150,
      });
      expect(result).not.toHaveProperty("output");
    },
  );

  it("a tool job that failed after its last attempt: status 500, TG_TOOL_JOB_FAILED", async () => {
    const played = await playOne([call("note"), call("note")], [jobFailed("tools")]);
    expect(resultOf(played, "s0-c0")).toMatchObject({
      isError: true,
      text: jobFailedFailure().text,
      status: 500,
      errorCode: "TG_TOOL_JOB_FAILED",
      outcome: "error",
      verdict: ALLOW,
      durationMs: 0,
    });
    expect(resultOf(played, "s0-c1").outcome).toBe("ok");
    expect(played.response.status).toBe("completed");
  });
});

describe("an approval job's report settles (or dispatches) a parked call", () => {
  it("approved with an edit, and the tool ran: the approval record and the effective (edited) input", async () => {
    const played = await playOne(
      [call("refund", { amount: 500 })],
      [
        approvedAndRan(
          { refunded: 80 },
          { approver: "ann", comment: "80 is enough", editedInput: { amount: 80 }, verdictOnEdit: ALLOW },
        ),
      ],
    );
    expect(resultOf(played, "s0-c0")).toEqual({
      toolCallId: "call_0_0",
      callId: `${runId}-s0-c0`,
      toolName: "refund",
      step: 0,
      input: { amount: 80 },
      output: { refunded: 80 },
      text: '{"refunded":80}',
      isError: false,
      outcome: "ok",
      verdict: NEEDS_APPROVAL,
      durationMs: 25,
      approval: {
        approvalId: `${runId}-s0-c0-approval`,
        decision: "approved",
        approver: "ann",
        comment: "80 is enough",
        decidedAt: expect.any(Number),
        editedInput: { amount: 80 },
        verdictOnEdit: ALLOW,
      },
      // Executed is what the tool job reports it ran (tested end to end over HTTP); this report has none.
      inputs: { proposed: { amount: 500 }, approved: { amount: 80 } },
    });
  });

  it("approved as it was: the parked input, a record without editedInput", async () => {
    const played = await playOne([call("approve_me", { amount: 3 })], [approvedAndRan({ paid: 3 })]);
    const result = resultOf(played, "s0-c0");
    expect(result.input).toEqual({ amount: 3 });
    expect(result.approval).toEqual({
      approvalId: `${runId}-s0-c0-approval`,
      decision: "approved",
      approver: "ann",
      decidedAt: expect.any(Number),
    });
  });

  it("approved but the tool has not reported yet: dispatched with the approved input, so the worker re-adds the tool job", async () => {
    const script: TCallScript = [
      approval("approved", { approver: "ann", editedInput: { amount: 90 } }),
      toolOk({ refunded: 90 }),
    ];
    const paused = await playOne([call("refund", { amount: 500 })], script, {
      pauseBefore: (action) => action.type === "wait-children" && action.calls[0]?.state === "dispatched",
    });
    expect(rawInputOf(callOf(paused.state, "s0-c0"))).toEqual({ amount: 90 });
    expect(callOf(paused.state, "s0-c0")).toMatchObject({
      state: "dispatched",
      verdict: NEEDS_APPROVAL,
      approval: { decision: "approved", approver: "ann", editedInput: { amount: 90 } },
    });
    const played = await playOne([call("refund", { amount: 500 })], script);
    expect(played.trace).toEqual(["model", "decide c0", "wait c0", "wait c0", "settle", "model"]);
    expect(resultOf(played, "s0-c0")).toMatchObject({
      outcome: "ok",
      input: { amount: 90 },
      output: { refunded: 90 },
      approval: { decision: "approved", editedInput: { amount: 90 } },
    });
  });

  it("approved without an edit: the model's arguments, as sent, run", async () => {
    const played = await playOne(
      [call("approve_me", { amount: 3 })],
      [[approval("approved"), toolOk({ paid: 3 })]],
    );
    expect(resultOf(played, "s0-c0")).toMatchObject({
      input: { amount: 3 },
      approval: { decision: "approved" },
    });
  });

  it("approved, then the tool job failed: status 500 with the approval record kept", async () => {
    const played = await playOne(
      [call("approve_me", { amount: 3 })],
      [approval("approved", { approver: "ann" }), jobFailed("tools")],
    );
    expect(resultOf(played, "s0-c0")).toMatchObject({
      outcome: "error",
      status: 500,
      errorCode: "TG_TOOL_JOB_FAILED",
      input: { amount: 3 },
      approval: { decision: "approved", approver: "ann" },
    });
  });

  it.each<[string, Record<string, string>, string]>([
    [
      "the policy's rejectionText",
      { rejectionText: "Refunds over 1000 are never made.", reason: "r" },
      "Refunds over 1000 are never made.",
    ],
    ["else its reason", { reason: "Too large after the edit." }, "Too large after the edit."],
    ["else the standard text", {}, "This call is not allowed."],
  ])(
    "refused (the edited input was DENYed: edited approvals, D109): denied with %s, verdict DENY, the edit as input, recorded as refused",
    async (_name, texts, userMessage) => {
      const played = await playOne(
        [call("refund", { amount: 500 })],
        [
          approval("refused", {
            approver: "ann",
            editedInput: { amount: 5000 },
            verdictOnEdit: DENY,
            ...texts,
          }),
        ],
      );
      expect(played.trace).toEqual(["model", "decide c0", "wait c0", "settle", "model"]);
      expect(resultOf(played, "s0-c0")).toMatchObject({
        text: `code: TG_CALL_DENIED, status: 403, userMessage: ${userMessage} Do not retry this call.`,
        isError: true,
        status: 403,
        errorCode: "TG_CALL_DENIED",
        outcome: "denied",
        verdict: DENY,
        durationMs: 0,
        // The result shows the input the human asked for, the one that was refused.
        input: { amount: 5000 },
        approval: {
          approvalId: `${runId}-s0-c0-approval`,
          decision: "refused",
          approver: "ann",
          editedInput: { amount: 5000 },
          verdictOnEdit: DENY,
        },
      });
      expect(resultOf(played, "s0-c0")).not.toHaveProperty("output");
    },
  );

  it("refused without verdictOnEdit: the call keeps its own verdict", async () => {
    const played = await playOne(
      [call("approve_me", { amount: 3 })],
      [approval("refused", { approver: "ann" })],
    );
    expect(resultOf(played, "s0-c0")).toMatchObject({ outcome: "denied", verdict: NEEDS_APPROVAL });
  });

  it.each<[string, ReturnType<typeof call>, string | undefined, string]>([
    ["the reviewer's reason first", call("refund", { amount: 500 }), "Not this month.", "Not this month."],
    ["else the call's rejectionText", call("refund", { amount: 500 }), undefined, "The refund was declined."],
    [
      "else a standard text",
      call("approve_me", { amount: 3 }),
      undefined,
      "A human reviewer rejected this call; it did not run.",
    ],
  ])("rejected: %s", async (_name, parkedCall, comment, userMessage) => {
    const played = await playOne(
      [parkedCall],
      [approval("rejected", { approver: "bob", ...(comment === undefined ? {} : { comment }) })],
    );
    const result = resultOf(played, "s0-c0");
    expect(result).toMatchObject({
      text: `code: TG_CALL_REJECTED, status: 403, userMessage: ${userMessage}`,
      isError: true,
      status: 403,
      errorCode: "TG_CALL_REJECTED",
      outcome: "rejected",
      verdict: NEEDS_APPROVAL,
      input: JSON.parse(parkedCall.argumentsJson),
      approval: { decision: "rejected", approver: "bob", ...(comment === undefined ? {} : { comment }) },
    });
    expect(played.dispatched).toEqual([]);
  });

  it.each<[string, number, string]>([
    ["refund", 60_000, "60 seconds"],
    ["approve_me", 300_000, "5 minutes"],
  ])(
    "expired (%s): the text names the approval TTL nobody approved within",
    async (toolName, ttlMs, described) => {
      const played = await playOne(
        [call(toolName, toolName === "refund" ? { amount: 500 } : { amount: 3 })],
        [approval("expired")],
        { approvalTtlMsOf: (name) => (name === "approve_me" ? 300_000 : 60_000) },
      );
      const result = resultOf(played, "s0-c0");
      expect(result).toMatchObject({
        text: expiredFailure(ttlMs).text,
        status: 408,
        errorCode: "TG_APPROVAL_EXPIRED",
        outcome: "expired",
        approval: {
          approvalId: `${runId}-s0-c0-approval`,
          decision: "expired",
          decidedAt: expect.any(Number),
        },
      });
      expect(result.text).toBe(
        `code: TG_APPROVAL_EXPIRED, status: 408, userMessage: No one approved this call within ${described}, so it did not run.`,
      );
      expect(result.approval).not.toHaveProperty("approver");
    },
  );

  it("cancelled (the run was cancelled while it was parked): status 499, no approval record", async () => {
    const played = await playOne([call("approve_me", { amount: 3 })], [approval("cancelled")]);
    const result = resultOf(played, "s0-c0");
    expect(result).toMatchObject({ text: cancelledFailure().text, status: 499, outcome: "cancelled" });
    expect(result).not.toHaveProperty("approval");
  });

  it("the approval job failed after its last attempt: status 500, TG_TOOL_JOB_FAILED", async () => {
    const played = await playOne([call("approve_me", { amount: 3 })], [jobFailed("approvals")]);
    const result = resultOf(played, "s0-c0");
    expect(result).toMatchObject({
      text: jobFailedFailure().text,
      status: 500,
      errorCode: "TG_TOOL_JOB_FAILED",
      outcome: "error",
    });
    expect(result).not.toHaveProperty("approval");
  });
});

describe("applyChildResults reads every finished child again and changes only what is new", () => {
  it("reports of earlier steps, of settled calls and of unknown call ids change nothing", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [callTools([call("note")]), callTools([call("note"), call("note")]), answer("Done.")],
      children: { "s1-c0": [toolOk("first")], "s1-c1": [[], toolOk("second")] },
    });
    // The second wait of step 1 re-read step 0's report and s1-c0's: both results are as first settled.
    expect(played.trace).toContain("wait c1");
    expect(resultOf(played, "s0-c0").output).toEqual({ ran: "s0-c0" });
    expect(resultOf(played, "s1-c0").output).toBe("first");
    expect(resultOf(played, "s1-c1").output).toBe("second");
  });

  it("a pending call ignores reports; a parked call ignores a tool report without a decision", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [callTools([call("approve_me", { amount: 3 }), call("check")])],
      pauseBefore: (action) => action.type === "wait-children",
    });
    const [parked, pending] = played.state.step!.calls;
    const outcomes: TChildOutcome[] = [
      toolOk("too early")(parked!, 0),
      jobFailed("tools")(parked!, 0),
      toolOk("not dispatched")(pending!, 0),
      toolOk("nobody")({ ...pending!, callId: "someone-else" }, 0),
    ];
    const next = applyChildResults(played.state, outcomes, () => 1, 99);
    expect(next.step).toEqual(played.state.step);
    expect(next.updatedAt).toBe(99);
  });

  it("a state without a step is returned as it is", () => {
    const state = createRunState({ runId, threadId, request: runRequest(), requestHash: "h", now: 1 });
    expect(applyChildResults(state, [], () => 1, 2)).toBe(state);
  });
});
