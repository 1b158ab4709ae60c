import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, EToolCallVerdict } from "../../../src/contracts/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

/**
 * Issue 9, defect 1: a tool's input is parsed once from the model's raw arguments (or a human's raw edit)
 * wherever a decision or an execution needs it, never parsed again from a parsed value.
 */
const seen: Array<{ where: "policy" | "execute"; tool: string; input: unknown }> = [];

const refundTool = defineTool({
  name: "refund",
  description: "Refunds an amount given as a decimal string.",
  // Not idempotent: parsing the parsed number again fails (a number is not a string).
  inputSchema: z.object({ amount: z.string().transform(Number) }),
  policy: ({ input }) => {
    seen.push({ where: "policy", tool: "refund", input });
    return { verdict: input.amount > 100 ? EToolCallVerdict.NEEDS_APPROVAL : EToolCallVerdict.ALLOW };
  },
  execute: async ({ input }) => {
    seen.push({ where: "execute", tool: "refund", input });
    return { refunded: input.amount, type: typeof input.amount };
  },
});

const scheduleTool = defineTool({
  name: "schedule",
  description: "Schedules a meeting at an ISO date.",
  inputSchema: z.object({ at: z.string().transform((text) => new Date(text)) }),
  policy: ({ input }) => {
    seen.push({ where: "policy", tool: "schedule", input });
    return { verdict: EToolCallVerdict.ALLOW };
  },
  execute: async ({ input }) => {
    seen.push({ where: "execute", tool: "schedule", input });
    return { isDate: input.at instanceof Date, year: input.at.getUTCFullYear() };
  },
});

const searchTool = defineTool({
  name: "search",
  description: "Searches with a default page size.",
  inputSchema: z.object({ query: z.string(), pageSize: z.number().int().default(10) }),
  policy: ({ input }) => {
    seen.push({ where: "policy", tool: "search", input });
    return { verdict: EToolCallVerdict.ALLOW };
  },
  execute: async ({ input }) => {
    seen.push({ where: "execute", tool: "search", input });
    return { query: input.query, pageSize: input.pageSize };
  },
});

const gateway = defineGateway({
  tools: [refundTool, scheduleTool, searchTool],
  name: "parse-once",
});

const user = { userId: "u-parse-once" };

describe("D9.1 (issue 9, defect 1): inputs are parsed once, from the raw arguments", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(gateway, "parse-once");
    await harness.startWorker();
  });
  afterAll(() => harness.close());

  it("a non-idempotent transform: the policy and execute both see 12.5, the tool runs", async () => {
    seen.length = 0;
    const response = await harness.client.ask({
      input: script({ calls: [{ name: "refund", input: { amount: "12.50" } }] }, { text: "done" }),
      userContext: user,
    });
    expect(response.status).toBe("completed");
    const part = response.toolResults[0]!;
    expect(part).toMatchObject({ outcome: "ok", output: { refunded: 12.5, type: "number" } });
    // What the caller reads is what the model sent, not a parsed value.
    expect(part.input).toEqual({ amount: "12.50" });
    expect(seen.filter((entry) => entry.tool === "refund").map((entry) => entry.input)).toEqual([
      { amount: 12.5 },
      { amount: 12.5 },
    ]);
  });

  it("a Date transform: execute receives a Date, the stored state keeps the raw string", async () => {
    seen.length = 0;
    const response = await harness.client.ask({
      input: script({ calls: [{ name: "schedule", input: { at: "2026-12-01T10:00:00Z" } }] }, { text: "ok" }),
      userContext: user,
    });
    expect(response.toolResults[0]).toMatchObject({
      outcome: "ok",
      input: { at: "2026-12-01T10:00:00Z" },
      output: { isDate: true, year: 2026 },
    });
    const policyInput = seen.find((entry) => entry.where === "policy")!.input as { at: unknown };
    expect(policyInput.at).toBeInstanceOf(Date);
  });

  it("a default: the policy and execute both see it; the stored input is what the model sent", async () => {
    seen.length = 0;
    const response = await harness.client.ask({
      input: script({ calls: [{ name: "search", input: { query: "refunds" } }] }, { text: "ok" }),
      userContext: user,
    });
    expect(response.toolResults[0]).toMatchObject({
      outcome: "ok",
      input: { query: "refunds" },
      output: { query: "refunds", pageSize: 10 },
    });
    expect(seen.map((entry) => entry.input)).toEqual([
      { query: "refunds", pageSize: 10 },
      { query: "refunds", pageSize: 10 },
    ]);
  });

  it("an approver sees the raw input and edits it raw; execute sees the edit parsed once", async () => {
    seen.length = 0;
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: "refund", input: { amount: "250.00" } }] }, { text: "refunded" }),
      userContext: user,
    });
    const approval = await waitUntil(async () => (await harness.client.approvals.list({ runId }))[0]);
    expect(approval.input).toEqual({ amount: "250.00" });
    await harness.client.approvals.approve(approval.approvalId, {
      approver: "ann",
      input: { amount: "99.90" },
    });
    const response = await harness.client.wait(runId);
    expect(response.status).toBe("completed");
    expect(response.toolResults[0]).toMatchObject({
      outcome: "ok",
      input: { amount: "99.90" },
      output: { refunded: 99.9, type: "number" },
    });
    expect(seen.filter((entry) => entry.where === "execute").map((entry) => entry.input)).toEqual([
      { amount: 99.9 },
    ]);
  });
});
