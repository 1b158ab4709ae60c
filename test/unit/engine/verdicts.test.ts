import { describe, expect, it } from "vitest";
import { EToolCallVerdict } from "../../../src/contracts/index.js";
import {
  applyModelReply,
  applyVerdicts,
  createRunState,
  evaluateVerdicts,
  nextAction,
  startRun,
  type TRunState,
  toolGone,
} from "../../../src/engine/internals.js";
import {
  answer,
  call,
  callTools,
  playRun,
  resultOf,
  runId,
  runRequest,
  threadId,
  userContext,
} from "./driver.js";
import { allTools, checkTool, defaultTools, runToolsOf } from "./engine-tools.js";

const { ALLOW, DENY, NEEDS_APPROVAL } = EToolCallVerdict;
const denied = (userMessage: string) =>
  `code: TG_CALL_DENIED, status: 403, userMessage: ${userMessage} Do not retry this call.`;

describe("DENY: the call is settled as refused at once and never dispatched", () => {
  it.each<[string, ReturnType<typeof call>, string]>([
    [
      "rejectionText first",
      call("check", { verdict: DENY, rejectionText: "Not for you.", reason: "internal rule 7" }),
      "Not for you.",
    ],
    [
      "else the reason",
      call("check", { verdict: DENY, reason: "The gate is closed." }),
      "The gate is closed.",
    ],
    ["else the standard text", call("check", { verdict: DENY }), "This call is not allowed."],
    ["a static DENY: the standard text", call("blocked"), "This call is not allowed."],
    [
      "a predicate's DENY on the input",
      call("refund", { amount: 5000 }),
      "Refunds over 1000 are never made.",
    ],
  ])("%s", async (_name, deniedCall, userMessage) => {
    const played = await playRun({
      tools: defaultTools,
      replies: [callTools([deniedCall, call("note")]), answer("Sorry.")],
    });
    expect(resultOf(played, "s0-c0")).toMatchObject({
      text: denied(userMessage),
      isError: true,
      status: 403,
      errorCode: "TG_CALL_DENIED",
      outcome: "denied",
      verdict: DENY,
      durationMs: 0,
      input: JSON.parse(deniedCall.argumentsJson),
    });
    expect(played.dispatched).toEqual(["s0-c1"]);
    expect(played.parked).toEqual([]);
  });

  it("the planned call keeps the policy's texts", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [
        callTools([call("check", { verdict: DENY, rejectionText: "No.", reason: "Why." })]),
        answer("."),
      ],
      pauseBefore: (action) => action.type === "settle-step",
    });
    expect(played.state.step?.calls[0]).toMatchObject({
      state: "settled",
      verdict: DENY,
      rejectionText: "No.",
      reason: "Why.",
    });
  });
});

describe("ALLOW: the call is dispatched to a tool job", () => {
  it("dispatched with the model's arguments as sent, then settled with the verdict on its result", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [callTools([call("refund", { amount: 5 }), call("note")]), answer("Done.")],
      pauseBefore: (action) => action.type === "wait-children",
    });
    expect(played.dispatched).toEqual(["s0-c0", "s0-c1"]);
    expect(
      played.state.step?.calls.map((planned) => [planned.state, planned.verdict, planned.argumentsJson]),
    ).toEqual([
      ["dispatched", ALLOW, '{"amount":5}'],
      ["dispatched", ALLOW, "{}"],
    ]);
    const finished = await playRun({
      tools: defaultTools,
      replies: [callTools([call("refund", { amount: 5 })]), answer("Done.")],
    });
    expect(resultOf(finished, "s0-c0")).toMatchObject({ verdict: ALLOW, outcome: "ok" });
  });
});

describe("NEEDS_APPROVAL: the call is parked for a human", () => {
  it("parked with approvalId <callId>-approval and the policy's reason and rejectionText", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [
        callTools([call("refund", { amount: 500 }), call("approve_me", { amount: 3 }), call("note")]),
      ],
      pauseBefore: (action) => action.type === "wait-children",
    });
    expect(played.trace).toEqual(["model", "decide c0 c1 c2"]);
    expect(played.parked).toEqual(["s0-c0", "s0-c1"]);
    expect(played.dispatched).toEqual(["s0-c2"]);
    expect(played.state.step?.calls[0]).toMatchObject({
      state: "parked",
      callId: `${runId}-s0-c0`,
      approvalId: `${runId}-s0-c0-approval`,
      verdict: NEEDS_APPROVAL,
      reason: "A large refund.",
      rejectionText: "The refund was declined.",
      argumentsJson: '{"amount":500}',
    });
    expect(played.state.step?.calls[1]).toMatchObject({
      state: "parked",
      approvalId: `${runId}-s0-c1-approval`,
      verdict: NEEDS_APPROVAL,
    });
    expect(played.state.step?.calls[1]).not.toHaveProperty("rejectionText");
  });
});

describe("the profile's approvals are a floor: ALLOW becomes NEEDS_APPROVAL, DENY stays DENY", () => {
  const tools = runToolsOf(allTools, { profiles: { intern: { approvals: ["note", "billing"] } } });

  it.each<[string, string | undefined, ReturnType<typeof call>, EToolCallVerdict, string | undefined]>([
    [
      "by tool name",
      "intern",
      call("note"),
      NEEDS_APPROVAL,
      'Calls of "note" need approval for the profile "intern".',
    ],
    [
      "by tag, over a predicate's ALLOW",
      "intern",
      call("refund", { amount: 5 }),
      NEEDS_APPROVAL,
      'Calls of "refund" need approval for the profile "intern".',
    ],
    [
      "the policy's own NEEDS_APPROVAL keeps its reason",
      "intern",
      call("refund", { amount: 500 }),
      NEEDS_APPROVAL,
      "A large refund.",
    ],
    ["a predicate's DENY wins", "intern", call("refund", { amount: 5000 }), DENY, undefined],
    ["a static DENY wins", "intern", call("blocked"), DENY, undefined],
    ["a tool the profile does not list", "intern", call("lookup", { orderId: "1" }), ALLOW, undefined],
    ["a user without a profile", undefined, call("note"), ALLOW, undefined],
    ["a profile the configuration does not name", "guest", call("note"), ALLOW, undefined],
    ["a profile named __proto__ finds nothing inherited", "__proto__", call("note"), ALLOW, undefined],
  ])("%s", async (_name, profile, decidedCall, verdict, reason) => {
    const played = await playRun({
      tools,
      request: { userContext: { ...userContext, ...(profile === undefined ? {} : { profile }) } },
      replies: [callTools([decidedCall]), answer("Done.")],
    });
    expect(played.verdicts).toEqual([["s0-c0", verdict]]);
    expect(resultOf(played, "s0-c0").verdict).toBe(verdict);
    expect(played.parked).toEqual(verdict === NEEDS_APPROVAL ? ["s0-c0"] : []);
    if (reason !== undefined) {
      expect(
        played.states.flatMap((state) => state.step?.calls ?? []).find((c) => c.state === "parked")?.reason,
      ).toBe(reason);
    }
  });
});

describe("evaluateVerdicts and applyVerdicts at their edges", () => {
  async function plannedState(): Promise<TRunState> {
    const state = startRun(
      createRunState({ runId, threadId, request: runRequest(), requestHash: "h", now: 1 }),
      [],
      2,
    );
    return applyModelReply(
      state,
      {
        text: null,
        toolCalls: [{ id: "a", name: "note", argumentsJson: "{}" }],
        usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      },
      defaultTools,
      3,
    );
  }

  it("the predicate is asked with the parsed input, the user context, the tool name and the thread", async () => {
    const seen: unknown[] = [];
    const spy = {
      ...checkTool,
      policy: (args: unknown) => {
        seen.push(args);
        return { verdict: ALLOW };
      },
    };
    await playRun({
      tools: runToolsOf([spy]),
      request: { userContext: { userId: "u-9", profile: "p" } },
      replies: [callTools([call("check", { reason: "r" })]), answer("Done.")],
    });
    expect(seen).toEqual([
      {
        input: { verdict: ALLOW, reason: "r" },
        userContext: { userId: "u-9", profile: "p" },
        toolName: "check",
        threadId,
      },
    ]);
  });

  it("applyVerdicts without a step changes nothing", () => {
    const state = createRunState({ runId, threadId, request: runRequest(), requestHash: "h", now: 1 });
    const applied = applyVerdicts(state, new Map([["x", { verdict: ALLOW }]]), 5);
    expect(applied).toEqual({ state, dispatched: [], parked: [] });
  });

  it("applyVerdicts ignores a verdict for a call that is not pending, and calls without a verdict stay pending", async () => {
    const planned = await plannedState();
    const first = applyVerdicts(planned, new Map(), 4);
    expect(first.state.step?.calls[0]?.state).toBe("pending");
    const callId = planned.step!.calls[0]!.callId;
    const dispatched = applyVerdicts(planned, new Map([[callId, { verdict: ALLOW }]]), 5).state;
    const again = applyVerdicts(dispatched, new Map([[callId, { verdict: DENY }]]), 6);
    expect(again.state.step?.calls[0]).toMatchObject({ state: "dispatched", verdict: ALLOW });
    expect(again.dispatched).toEqual([]);
  });

  it("evaluateVerdicts marks a call whose tool the registry no longer holds as gone", async () => {
    const planned = await plannedState();
    const verdicts = await evaluateVerdicts(planned.step!.calls, runToolsOf([checkTool]), {
      userContext,
      threadId,
    });
    expect([...verdicts.values()]).toEqual(planned.step!.calls.map(() => toolGone));
  });

  // A pending call whose tool is no longer in the run's registry (a redeploy removed it while the run
  // waited for an earlier wave or a human) must settle as an unknown tool, not be offered for decision
  // forever (the run worker would spin).
  it("a pending call whose tool has left the registry is settled as unknown_tool, not decided forever", async () => {
    const planned = await plannedState();
    const withoutNote = runToolsOf([checkTool]);
    let state = planned;
    for (let round = 0; round < 3; round += 1) {
      const action = nextAction(state, withoutNote);
      if (action.type !== "decide") break;
      const verdicts = await evaluateVerdicts(action.calls, withoutNote, { userContext, threadId });
      state = applyVerdicts(state, verdicts, 10 + round).state;
    }
    expect(nextAction(state, withoutNote).type).not.toBe("decide");
    expect(state.step?.calls[0]).toMatchObject({ state: "settled", result: { outcome: "unknown_tool" } });
  });
});
