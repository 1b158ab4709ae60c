import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineTool, EToolCallVerdict, type TToolCallPolicyResult } from "../../../src/contracts/index.js";
import { ToolPolicy } from "../../../src/policy/index.js";
import { ToolRegistry } from "../../../src/tools/index.js";
import { callRequest } from "../tools/fixtures.js";

const { ALLOW, DENY, NEEDS_APPROVAL } = EToolCallVerdict;
const context = { userContext: { userId: "approver-1" }, threadId: "thread-1" };

function refund(decide: (amount: number) => TToolCallPolicyResult) {
  const policy = vi.fn(({ input }: { input: { amount: number } }) => decide(input.amount));
  const execute = vi.fn(async () => "refunded");
  const tool = defineTool({
    name: "refund",
    description: "Refunds a charge.",
    inputSchema: z.object({ amount: z.coerce.number().positive() }),
    policy,
    execute,
  });
  return { tool, policy, execute };
}

const byAmount = (amount: number): TToolCallPolicyResult =>
  amount > 1_000
    ? { verdict: DENY, rejectionText: "Refunds over 1000 are not possible." }
    : amount > 500
      ? { verdict: NEEDS_APPROVAL, reason: "large refund" }
      : { verdict: ALLOW };

describe("rule 6 (design decision D109): an input a human edited is decided again", () => {
  const policy = new ToolPolicy();

  it("is validated against the schema first: a wrong edit never reaches the policy", async () => {
    const { tool, policy: predicate } = refund(byAmount);
    expect(await policy.decideEdited(tool, { amount: -5 }, context)).toMatchObject({
      ok: false,
      issues: [{ path: "amount" }],
    });
    expect(predicate).not.toHaveBeenCalled();
  });

  it.each<[string, number, EToolCallVerdict, EToolCallVerdict]>([
    ["a DENY refuses it", 5_000, DENY, DENY],
    ["a NEEDS_APPROVAL runs it: the human approved that input", 700, ALLOW, NEEDS_APPROVAL],
    ["an ALLOW runs it", 10, ALLOW, ALLOW],
  ])("%s", async (_name, amount, verdict, verdictBeforeApproval) => {
    const { tool } = refund(byAmount);
    const decision = await policy.decideEdited(tool, { amount }, context);
    expect(decision).toMatchObject({
      ok: true,
      input: { amount },
      result: { verdict },
      verdictBeforeApproval,
    });
  });

  it("the policy decides on the parsed edit, and the parsed edit is what runs", async () => {
    const { tool, policy: predicate } = refund(byAmount);
    const decision = await policy.decideEdited(tool, { amount: "700" }, context);
    expect(predicate).toHaveBeenCalledWith(expect.objectContaining({ input: { amount: 700 } }));
    expect(decision).toMatchObject({ ok: true, input: { amount: 700 }, result: { reason: "large refund" } });
  });

  it("the approvals floor of the profile counts as the human's approval too", async () => {
    const floored = new ToolPolicy({ profiles: { cautious: { approvals: ["refund"] } } });
    const { tool } = refund(byAmount);
    expect(
      await floored.decideEdited(
        tool,
        { amount: 10 },
        { ...context, userContext: { userId: "u", profile: "cautious" } },
      ),
    ).toMatchObject({ ok: true, result: { verdict: ALLOW }, verdictBeforeApproval: NEEDS_APPROVAL });
  });

  it("a schema that throws rejects the edit with a generic issue and reports the error", async () => {
    const errors: unknown[] = [];
    const schemaError = new Error("schema bug");
    const reporting = new ToolPolicy({}, { onPolicyError: ({ error }) => errors.push(error) });
    const tool = defineTool({
      name: "broken",
      description: "Has a schema that throws.",
      inputSchema: z.object({}).refine(() => {
        throw schemaError;
      }),
      execute: async () => "never",
    });
    const decision = await reporting.decideEdited(tool, {}, context);
    expect(decision).toEqual({
      ok: false,
      issues: [{ path: "", message: "The input could not be validated against the tool's schema." }],
    });
    expect(errors).toEqual([schemaError]);
    expect((await new ToolPolicy().decideEdited(tool, {}, context)).ok).toBe(false);
  });
});

describe("rule 2: a rejected input never reaches the policy or execute", () => {
  it("the engine's order — parse, then decide, then execute — stops at the schema", async () => {
    const { tool, policy: predicate, execute } = refund(byAmount);
    const registry = new ToolRegistry({ tools: [tool] });
    const policy = new ToolPolicy();
    const parsed = await registry.parseArguments("refund", '{"amount":"lots"}');
    expect(parsed).toMatchObject({ ok: false, failure: { outcome: "invalid_input" } });
    expect(await policy.decideEdited(tool, { amount: "lots" }, context)).toMatchObject({ ok: false });
    expect(await registry.execute(callRequest("refund", { amount: "lots" }))).toMatchObject({
      outcome: "invalid_input",
    });
    expect(predicate).not.toHaveBeenCalled();
    expect(execute).not.toHaveBeenCalled();
  });
});
