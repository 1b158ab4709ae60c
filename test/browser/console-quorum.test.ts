import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, EToolCallVerdict } from "../../src/contracts/index.js";
import { defineGateway } from "../../src/gateway/index.js";
import { script } from "../helpers/script.js";
import { consoleTokens, type IConsoleStack, startConsoleStack } from "./console-stack.js";

/** Wire transfers need two distinct approvers ("four eyes"). */
const quorumGateway = defineGateway({
  tools: [
    defineTool({
      name: "wire_transfer",
      description: "Sends money to a bank account.",
      inputSchema: z.object({ iban: z.string().min(15), amount: z.number().positive() }),
      policy: EToolCallVerdict.NEEDS_APPROVAL,
      execute: async ({ input }) => ({ sent: input.amount }),
    }),
  ],
  approvals: { rules: [{ name: "four-eyes", tools: ["wire_transfer"], quorum: 2 }] },
});

describe("a quorum of two in two browser sessions", () => {
  let stack: IConsoleStack;
  beforeAll(async () => {
    stack = await startConsoleStack("console-quorum", quorumGateway);
  }, 60_000);
  afterAll(() => stack?.close());

  it("the first approval is counted and shown to the second reviewer, whose approval runs the call", async () => {
    const alice = await stack.newSession();
    const bob = await stack.newSession();
    await alice.signIn(consoleTokens.alice.token);
    await bob.signIn(consoleTokens.bob.token);
    const { runId } = await stack.harness.client.run({
      input: script({
        calls: [{ name: "wire_transfer", input: { iban: "DE89370400440532013000", amount: 900 } }],
      }),
      userContext: { userId: "u-ada" },
    });
    const cardOf = (session: typeof alice) =>
      session.page.locator(`.approval-card[data-approval-id^="${runId}"]`);
    await cardOf(alice).waitFor();
    await cardOf(alice).getByRole("link", { name: "wire_transfer" }).click();
    await alice.page.locator("#approve").click();
    await alice.page.locator(".outcome", { hasText: "Your approval is counted (1 of 2)" }).waitFor();
    await alice.page.locator(".approval-header .quorum", { hasText: "1 of 2 approvals: alice" }).waitFor();
    // Still pending: the call has not run.
    expect((await stack.harness.client.getRun(runId)).pendingApprovals).toHaveLength(1);

    // Bob's inbox shows the progress live, and his approval completes the quorum.
    await cardOf(bob).locator(".quorum", { hasText: "1 of 2 approvals: alice" }).waitFor();
    await cardOf(bob).getByRole("link", { name: "wire_transfer" }).click();
    await bob.page.locator("#approve").click();
    await bob.page.locator(".outcome", { hasText: "You approved this call" }).waitFor();
    const response = await stack.harness.client.wait(runId, { timeoutMs: 20_000 });
    expect(response.toolResults[0]).toMatchObject({ toolName: "wire_transfer", output: { sent: 900 } });
    // Alice's page, still open, shows the final decision as made.
    await alice.page.locator(".status", { hasText: /^approved by bob/ }).waitFor();

    await bob.page.locator("#nav a[data-section=history]").click();
    const row = bob.page.locator(`.history-row[data-approval-id^="${runId}"]`);
    await expect(row.textContent()).resolves.toMatch(/Approvers\s*alice, bob/);
    expect(alice.problems.concat(bob.problems)).toEqual([]);
  });
});
