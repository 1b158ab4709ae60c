import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, EToolCallVerdict } from "../../src/contracts/index.js";
import { defineGateway } from "../../src/gateway/index.js";
import {
  callApi,
  openAliceAt,
  openApproval,
  pageWidths,
  parkCall,
  toolResultOf,
} from "./approval-page-stack.js";
import { type IConsoleStack, startConsoleStack } from "./console-stack.js";

const wrongCustomerFill =
  "The reviewer says this email goes to the wrong customer: look the customer up again.";

/** An email with two named reject options, and a wire transfer that needs two approvers. */
const gateway = defineGateway({
  tools: [
    defineTool({
      name: "send_email",
      description: "Sends an email to a customer.",
      inputSchema: z.object({ to: z.string(), body: z.string() }),
      policy: EToolCallVerdict.NEEDS_APPROVAL,
      rejectOptions: [
        {
          name: "wrong_customer",
          title: "Wrong customer",
          description: "The address is not the customer's.",
          promptFill: wrongCustomerFill,
        },
        { name: "tone", title: "Rewrite the tone", promptFill: "Rewrite the email in a friendlier tone." },
      ],
      execute: async ({ input }) => ({ sentTo: input.to }),
    }),
    defineTool({
      name: "wire_transfer",
      description: "Sends money to a bank account.",
      inputSchema: z.object({ iban: z.string(), amount: z.number().positive() }),
      policy: EToolCallVerdict.NEEDS_APPROVAL,
      execute: async ({ input }) => ({ sent: input.amount }),
    }),
  ],
  approvals: { rules: [{ name: "four-eyes", tools: ["wire_transfer"], quorum: 2 }] },
});

interface IApprovalBody {
  inputHash: string;
  decision?: { rejectOption?: { name: string } };
}

describe("named reject options and the input shown, in the console", () => {
  let stack: IConsoleStack;
  beforeAll(async () => {
    stack = await startConsoleStack("console-reject-options", gateway);
  }, 60_000);
  afterAll(() => stack?.close());

  it.each(pageWidths)(
    "at %i px: one button per option; the model reads the chosen option's text and the reason",
    async (width) => {
      const { page, problems } = await openAliceAt(stack, width);
      const { runId, approvalId } = await parkCall(stack, "send_email", {
        to: "ada@example.com",
        body: "Your refund is on its way.",
      });
      await openApproval(stack, page, approvalId);
      const optionButtons = page.locator("button.reject-option");
      await expect(optionButtons.allTextContents()).resolves.toEqual(["Wrong customer", "Rewrite the tone"]);
      await page
        .locator(".reject-option-descriptions", { hasText: "The address is not the customer's." })
        .waitFor();
      // Every button is on the screen, whatever its width.
      for (const button of await optionButtons.all()) {
        const box = await button.boundingBox();
        expect(box !== null && box.x >= 0 && box.x + box.width <= width).toBe(true);
      }
      await page.getByLabel("Reason to reject").fill("Ada moved to another account.");
      await page.getByRole("button", { name: "Wrong customer" }).click();
      await page.locator(".outcome", { hasText: "You rejected this call as “Wrong customer”" }).waitFor();

      const decided = await callApi<IApprovalBody>(stack, "alice", "GET", `v1/approvals/${approvalId}`);
      expect(decided.body.decision?.rejectOption?.name).toBe("wrong_customer");
      await stack.harness.client.wait(runId, { timeoutMs: 20_000 });
      const call = await toolResultOf(stack, runId);
      expect(call.outcome).toBe("rejected");
      expect((call as unknown as { text: string }).text).toBe(
        `code: TG_CALL_REJECTED, status: 403, userMessage: ${wrongCustomerFill} Reviewer's reason: Ada moved to another account.`,
      );
      expect(problems).toEqual([]);
    },
  );

  it.each(pageWidths)(
    "at %i px: a decision on an input another approver changed meanwhile is refused, said so, and made on the new one",
    async (width) => {
      const { page, problems } = await openAliceAt(stack, width);
      const { runId, approvalId } = await parkCall(stack, "wire_transfer", {
        iban: "DE89370400440532013000",
        amount: 900,
      });
      await openApproval(stack, page, approvalId);
      await expect(page.getByLabel("amount").inputValue()).resolves.toBe("900");
      // Bob, elsewhere, approves with an edit while Alice's page still shows 900.
      const seenByBob = await callApi<IApprovalBody>(stack, "bob", "GET", `v1/approvals/${approvalId}`);
      const edited = await callApi(stack, "bob", "POST", `v1/approvals/${approvalId}/approve`, {
        input: { iban: "DE89370400440532013000", amount: 90 },
        inputHash: seenByBob.body.inputHash,
      });
      expect(edited.status).toBe(200);

      await page.locator("#approve").click();
      const alert = page.locator(".outcome .stale[role=alert]");
      await alert.waitFor();
      await expect(alert.textContent()).resolves.toContain("Nothing was decided: the input changed");
      await expect(alert.isVisible()).resolves.toBe(true);
      // The form now shows what a decision acts on: Bob's 90, to review before deciding again.
      await expect(page.getByLabel("amount").inputValue()).resolves.toBe("90");
      expect((await stack.harness.client.getRun(runId)).pendingApprovals).toHaveLength(1);

      await page.locator("#approve").click();
      await page.locator(".outcome", { hasText: "You approved this call" }).waitFor();
      await stack.harness.client.wait(runId, { timeoutMs: 20_000 });
      const call = await toolResultOf(stack, runId);
      expect(call).toMatchObject({ outcome: "ok", input: { amount: 90 }, output: { sent: 90 } });
      expect(problems).toEqual([]);
    },
  );
});
