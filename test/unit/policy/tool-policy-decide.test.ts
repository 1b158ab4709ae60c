import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  defineTool,
  EToolCallVerdict,
  type IUserContext,
  type TAnyToolDef,
  type TToolCallPolicyResult,
} from "../../../src/contracts/index.js";
import { policyFailedReason, ToolPolicy } from "../../../src/policy/index.js";
import { echoTool, namedTool } from "../tools/fixtures.js";

const { ALLOW, DENY, NEEDS_APPROVAL } = EToolCallVerdict;
const context = (userContext: Partial<IUserContext> = {}) => ({
  userContext: { userId: "user-1", ...userContext },
  threadId: "thread-1",
});

const refund = (policy?: TAnyToolDef["policy"], tags: string[] = ["billing"]) =>
  defineTool({
    name: "refund",
    description: "Refunds a charge.",
    inputSchema: z.object({ amount: z.number() }),
    tags,
    ...(policy === undefined ? {} : { policy }),
    execute: async () => "refunded",
  });

describe("rule 3 (design decision D87): the tool's policy", () => {
  const policy = new ToolPolicy();

  it("omitted: every call is allowed", async () => {
    expect(await policy.decide(refund(), { amount: 1 }, context())).toEqual({ verdict: ALLOW });
  });

  it.each([ALLOW, DENY, NEEDS_APPROVAL])("the verdict %s applies to every call", async (verdict) => {
    for (const amount of [1, 10_000]) {
      expect(await policy.decide(refund(verdict), { amount }, context())).toEqual({ verdict });
    }
  });

  it.each([
    [
      "a sync predicate",
      (amount: number): TToolCallPolicyResult =>
        amount > 500 ? { verdict: NEEDS_APPROVAL } : { verdict: ALLOW },
    ],
    [
      "an async predicate",
      async (amount: number): Promise<TToolCallPolicyResult> =>
        amount > 500 ? { verdict: NEEDS_APPROVAL } : { verdict: ALLOW },
    ],
  ])("%s decides per call on the parsed input", async (_name, decideAmount) => {
    const tool = refund(({ input }: { input: { amount: number } }) => decideAmount(input.amount));
    expect((await policy.decide(tool, { amount: 10 }, context())).verdict).toBe(ALLOW);
    expect((await policy.decide(tool, { amount: 501 }, context())).verdict).toBe(NEEDS_APPROVAL);
  });

  it("a predicate is asked with the input, the user context, the tool name and the thread", async () => {
    const predicate = vi.fn(() => ({ verdict: ALLOW }));
    const userContext = { userId: "u-7", roles: ["agent"], attributes: { tenant: "acme" } };
    await policy.decide(refund(predicate), { amount: 3 }, { userContext, threadId: "t-9" });
    expect(predicate).toHaveBeenCalledWith({
      input: { amount: 3 },
      userContext,
      toolName: "refund",
      threadId: "t-9",
    });
  });

  it("a predicate may return rejectionText and reason; nothing else travels on", async () => {
    const returned = {
      verdict: DENY,
      rejectionText: "Refunds are closed.",
      reason: "kill switch",
      secret: "x",
    };
    expect(
      await policy.decide(
        refund(() => returned),
        { amount: 1 },
        context(),
      ),
    ).toEqual({
      verdict: DENY,
      rejectionText: "Refunds are closed.",
      reason: "kill switch",
    });
  });

  it.each<[string, () => unknown]>([
    [
      "throws",
      () => {
        throw new Error("lookup failed: SECRET");
      },
    ],
    ["rejects", () => Promise.reject(new Error("lookup failed: SECRET"))],
    ["returns an unknown verdict", () => ({ verdict: "MAYBE" })],
    ["returns a lower-case verdict", () => ({ verdict: "allow" })],
    ["returns nothing", () => undefined],
    ["returns a bare verdict", () => ALLOW],
    ["returns a non-string reason", () => ({ verdict: ALLOW, reason: 42 })],
    ["returns a non-string rejectionText", () => ({ verdict: ALLOW, rejectionText: {} })],
    ["returns a verdict without a prototype", () => ({ verdict: Object.create(null) })],
    [
      "returns an answer whose getter throws",
      () => ({
        get verdict() {
          throw new Error("getter");
        },
      }),
    ],
  ])(
    "fails closed: a predicate that %s refuses the call, saying the policy failed",
    async (_name, predicate) => {
      const errors: unknown[] = [];
      const failing = new ToolPolicy({}, { onPolicyError: ({ error }) => errors.push(error) });
      const result = await failing.decide(refund(predicate as never), { amount: 1 }, context());
      expect(result).toEqual({ verdict: DENY, reason: policyFailedReason });
      expect(JSON.stringify(result)).not.toContain("SECRET");
      expect(errors).toHaveLength(1);
    },
  );

  it("fails closed even without onPolicyError, or when it throws", async () => {
    const predicate = () => {
      throw new Error("bug");
    };
    const throwingReporter = new ToolPolicy(
      {},
      {
        onPolicyError: () => {
          throw new Error("reporter down");
        },
      },
    );
    for (const policyUnderTest of [policy, throwingReporter]) {
      expect((await policyUnderTest.decide(refund(predicate), { amount: 1 }, context())).verdict).toBe(DENY);
    }
  });

  it("a static verdict that is not one fails closed too", async () => {
    expect((await policy.decide(refund("MAYBE" as EToolCallVerdict), { amount: 1 }, context())).verdict).toBe(
      DENY,
    );
  });
});

describe("rule 4 (design decision D87): after the tool's policy, the profile's approvals turn an ALLOW into NEEDS_APPROVAL", () => {
  const policy = new ToolPolicy({
    profiles: {
      cautious: { approvals: ["refund"] },
      finance: { approvals: ["billing"] },
      open: { approvals: [] },
    },
  });

  it.each([
    ["the profile lists the tool's name", "cautious"],
    ["the profile lists one of the tool's tags", "finance"],
  ])("%s", async (_name, profile) => {
    expect(await policy.decide(refund(), { amount: 1 }, context({ profile }))).toEqual({
      verdict: NEEDS_APPROVAL,
      reason: `Calls of "refund" need approval for the profile "${profile}".`,
    });
  });

  it("keeps the policy's rejectionText and reason", async () => {
    const tool = refund(() => ({ verdict: ALLOW, rejectionText: "Declined.", reason: "small refund" }));
    expect(await policy.decide(tool, { amount: 1 }, context({ profile: "cautious" }))).toEqual({
      verdict: NEEDS_APPROVAL,
      rejectionText: "Declined.",
      reason: "small refund",
    });
  });

  it.each([
    ["no profile", undefined],
    ["a profile that lists other tools", "open"],
    ["an unknown profile", "nobody"],
    ["a profile named like an Object.prototype member", "constructor"],
    ["a profile named __proto__", "__proto__"],
  ])("no floor with %s", async (_name, profile) => {
    const userContext = profile === undefined ? {} : { profile };
    expect(await policy.decide(refund(), { amount: 1 }, context(userContext))).toEqual({ verdict: ALLOW });
  });

  it("a tool without tags is floored only by its name", async () => {
    expect(
      (await policy.decide(namedTool("refund"), { text: "x" }, context({ profile: "finance" }))).verdict,
    ).toBe(ALLOW);
    expect(
      (await policy.decide(namedTool("refund"), { text: "x" }, context({ profile: "cautious" }))).verdict,
    ).toBe(NEEDS_APPROVAL);
  });

  it("a NEEDS_APPROVAL from the tool stays as the tool gave it", async () => {
    const tool = refund(() => ({ verdict: NEEDS_APPROVAL, reason: "large refund" }));
    expect(await policy.decide(tool, { amount: 1 }, context({ profile: "cautious" }))).toEqual({
      verdict: NEEDS_APPROVAL,
      reason: "large refund",
    });
  });
});

describe("rule 5 (design decision D87): DENY wins; a refused call never goes to a human", () => {
  const policy = new ToolPolicy({ profiles: { cautious: { approvals: ["refund", "billing"] } } });
  it.each<[string, TAnyToolDef["policy"]]>([
    ["a DENY verdict", DENY],
    ["a predicate's DENY", () => ({ verdict: DENY, reason: "no charge" })],
    ["a failing predicate", () => Promise.reject(new Error("down"))],
  ])("%s stays DENY under an approvals floor", async (_name, toolPolicy) => {
    expect(
      (await policy.decide(refund(toolPolicy), { amount: 1 }, context({ profile: "cautious" }))).verdict,
    ).toBe(DENY);
  });
});

describe("policyKind: what the tool list shows and whether a call waits for its step (design decision D112: predicates wait for their step)", () => {
  it.each<[string, TAnyToolDef, string]>([
    ["omitted", echoTool(), ALLOW],
    ["a verdict", echoTool({ policy: NEEDS_APPROVAL }), NEEDS_APPROVAL],
    ["DENY", echoTool({ policy: DENY }), DENY],
    ["a predicate", echoTool({ policy: () => ({ verdict: ALLOW }) }), "PREDICATE"],
  ])("%s", (_name, tool, kind) => {
    expect(new ToolPolicy().policyKind(tool)).toBe(kind);
  });
});

describe("mayNeedApproval: the tools a reviewer can meet (the console's tool filter)", () => {
  const floors = new ToolPolicy({ profiles: { trial: { approvals: ["billing", "send_email"] } } });
  it.each<[string, TAnyToolDef, ToolPolicy, boolean]>([
    ["omitted, no profile floor", echoTool(), new ToolPolicy(), false],
    ["NEEDS_APPROVAL", echoTool({ policy: NEEDS_APPROVAL }), new ToolPolicy(), true],
    ["a predicate", echoTool({ policy: () => ({ verdict: ALLOW }) }), new ToolPolicy(), true],
    ["DENY, even under a floor naming its tag", refund(DENY), floors, false],
    ["ALLOW under a floor naming its tag", refund(ALLOW), floors, true],
    ["ALLOW under a floor naming it", namedTool("send_email"), floors, true],
    ["ALLOW under a floor naming others", refund(ALLOW, ["support"]), floors, false],
  ])("%s", (_name, tool, policy, expected) => {
    expect(policy.mayNeedApproval(tool)).toBe(expected);
  });
});
