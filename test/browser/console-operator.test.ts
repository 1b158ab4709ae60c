import { createServer } from "node:net";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { IApiToken } from "../../src/api/index.js";
import { defineTool, EToolCallVerdict } from "../../src/contracts/index.js";
import { defineGateway } from "../../src/gateway/index.js";
import { script } from "../helpers/script.js";
import { waitUntil } from "../helpers/wait-until.js";
import { openAt } from "./approval-page-stack.js";
import { consoleTokens, consoleTools, type IConsoleStack, startConsoleStack } from "./console-stack.js";

/*
 * What an operator and an approver see, in real chromium at a laptop's and a phone's width, against the
 * real API, worker, Redis and scripted model: runs waiting for a person found as such; a fork's timeline
 * saying what it took over and whose input its call ran with; an approved edit shown as an edit in the
 * conversation; the reject option chosen and the reason, after a reload and in History; a cancelled
 * approval not called decided; each model's fallbacks; no decision buttons for the run's creator; a
 * refusal that moves no button; no sideways scroll on a long answer; the buttons beside a long form.
 */

const widths = [1280, 390] as const;

/** A port nobody listens on: taken from the system, then let go. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Sixteen fields a reviewer reads before deciding: a form longer than a laptop's screen. */
const longFormFields = Array.from({ length: 16 }, (_, index) => `field${String(index + 1).padStart(2, "0")}`);

const operatorTools = [
  ...consoleTools.filter((tool) => tool.name === "refund" || tool.name === "lookup_order"),
  defineTool({
    name: "send_email",
    description: "Sends an email to the customer.",
    inputSchema: z.object({ to: z.string(), body: z.string() }),
    policy: EToolCallVerdict.NEEDS_APPROVAL,
    rejectOptions: [
      {
        name: "wrong_customer",
        title: "Wrong customer",
        description: "The address is not the customer's.",
        promptFill: "The reviewer says this goes to the wrong customer.",
      },
    ],
    execute: async ({ input }) => ({ sentTo: input.to }),
  }),
  defineTool({
    name: "wire_transfer",
    description: "Sends money to a bank account; finance decides.",
    inputSchema: z.object({ iban: z.string(), amount: z.number().positive() }),
    policy: EToolCallVerdict.NEEDS_APPROVAL,
    execute: async ({ input }) => ({ sent: input.amount }),
  }),
  defineTool({
    name: "update_customer",
    description: "Rewrites a customer's record.",
    inputSchema: z.object(
      Object.fromEntries(longFormFields.map((name) => [name, z.string().describe(`The record's ${name}.`)])),
    ),
    policy: EToolCallVerdict.NEEDS_APPROVAL,
    execute: async () => ({ updated: true }),
  }),
];

/** A desk service that creates runs and may decide approvals, and a reviewer who must hold `finance`. */
const extraTokens = {
  desk: {
    token: "desk-creator-token-0123456789ab",
    subject: "desk",
    roles: ["runs:write", "runs:read", "approvals:read", "approvals:decide"],
  },
  finance: {
    token: "fiona-finance-token-0123456789",
    subject: "fiona",
    roles: ["approvals:read", "approvals:decide", "finance"],
  },
} satisfies Record<string, IApiToken>;

const allTokens = [...Object.values(consoleTokens), ...Object.values(extraTokens)];

describe("what an operator and an approver see, in a browser", () => {
  let stack: IConsoleStack;
  beforeAll(async () => {
    const gateway = defineGateway({
      tools: operatorTools,
      approvals: {
        rules: [{ name: "finance-only", tools: ["wire_transfer"], approvers: { roles: ["finance"] } }],
      },
      models: {
        flaky: {
          model: "flaky-model",
          baseURL: `http://127.0.0.1:${await deadPort()}/v1`,
          fallbacks: ["default"],
          maxRetries: 0,
          // Tried again by the next run (no cooldown), so each width sees the same fallback.
          cooldownMs: 0,
        },
        broken: {
          model: "broken-model",
          baseURL: `http://127.0.0.1:${await deadPort()}/v1`,
          fallbacks: ["gone"],
          maxRetries: 0,
          cooldownMs: 0,
        },
        gone: {
          model: "gone-model",
          baseURL: `http://127.0.0.1:${await deadPort()}/v1`,
          maxRetries: 0,
          cooldownMs: 0,
        },
      },
    });
    stack = await startConsoleStack("console-operator", gateway);
    stack.tokenSet.replace(allTokens);
  }, 60_000);
  afterAll(() => stack?.close());

  const client = () => stack.harness.client;
  const text = async (locator: Locator) => (await locator.textContent()) ?? "";
  const fitsTheScreen = (page: Page) =>
    page.evaluate<boolean>("document.documentElement.scrollWidth <= window.innerWidth");
  const rowIds = (page: Page) =>
    page.locator(".run-row").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-run-id")));

  /** A page at `width`, signed in with `token`. */
  async function signedIn(width: number, token: string) {
    const opened = await openAt(stack, width);
    await opened.page.goto(stack.consoleUrl);
    await opened.page.getByLabel("API token").fill(token);
    await opened.page.getByRole("button", { name: "Sign in" }).click();
    await opened.page.getByRole("heading", { name: "Pending approvals" }).waitFor();
    return opened;
  }
  const parkedRun = async (input: string, userId: string) => {
    const { runId } = await client().run({ input, userContext: { userId } });
    const approval = await waitUntil(async () => (await client().approvals.list({ runId }))[0], {
      message: `${runId} parked`,
    });
    return { runId, approvalId: approval.approvalId };
  };
  const finishedRun = async (input: string, userId: string, model?: string) => {
    const { runId } = await client().run({ input, userContext: { userId }, ...(model ? { model } : {}) });
    await client().wait(runId, { timeoutMs: 20_000 });
    return runId;
  };
  const openApprovalPage = async (page: Page, approvalId: string) => {
    await page.goto(`${stack.consoleUrl}#/approvals/${encodeURIComponent(approvalId)}`);
    await page.locator(".approval-header .tool-heading").waitFor();
    await page.locator(".transcript .messages").waitFor();
  };

  for (const width of widths) {
    describe(`at ${width} px`, () => {
      it("finds the runs waiting for approval, and the run and its conversation say so", async () => {
        const user = `u-waiting-${width}`;
        const done = await finishedRun(script({ text: "Answered." }), user);
        const waiting = await parkedRun(
          script({ calls: [{ name: "refund", input: { chargeId: `ch_w${width}`, amount: 150 } }] }),
          user,
        );
        const { page, problems } = await signedIn(width, consoleTokens.operator.token);
        await page.goto(`${stack.consoleUrl}#/runs?user=${user}`);
        await waitUntil(async () => (await rowIds(page)).join() === [waiting.runId, done].join(), {
          message: "the user's two runs",
        });
        await page.getByLabel("Status").selectOption("waiting");
        await waitUntil(async () => (await rowIds(page)).join() === waiting.runId, {
          message: "only the run waiting for a person",
        });
        const row = page.locator(`.run-row[data-run-id="${waiting.runId}"]`);
        await expect(text(row.locator(".run-row-head"))).resolves.toMatch(/^waiting for approval/);

        await row.locator(".run-input a").click();
        await page.getByRole("heading", { name: `Run ${waiting.runId}` }).waitFor();
        const statusLine = page.locator(".run-status-line");
        await expect(text(statusLine)).resolves.toMatch(/^waiting for approval/);
        await expect(text(statusLine)).resolves.not.toContain("running");
        await expect(text(page.locator(".timeline-open"))).resolves.toContain("waiting for approval");

        await page.getByRole("link", { name: "Decide it in the inbox" }).click();
        await page.locator(".transcript .messages").waitFor();
        await expect(text(page.locator(".transcript p.field-hint").first())).resolves.toMatch(
          /: waiting for approval$/,
        );
        expect(await fitsTheScreen(page)).toBe(true);
        expect(problems).toEqual([]);
      });

      it("a fork's timeline marks what it took over and names the operator's input as the operator's", async () => {
        const original = await finishedRun(
          script(
            { calls: [{ name: "lookup_order", input: { orderId: `F-${width}` } }] },
            { calls: [{ name: "refund", input: { chargeId: `ch_f${width}`, amount: 40 } }] },
            { text: "Refunded." },
          ),
          `u-fork-${width}`,
        );
        const { response } = await client().getRun(original);
        const refundCall = response!.toolResults.find((part) => part.toolName === "refund")!;
        const fork = await client().fork(original, {
          fromCallId: refundCall.callId,
          input: { chargeId: `ch_f${width}`, amount: 25 },
          createdBy: "olga",
          // The refund changes things: a fork that runs it again says so.
          repeatEffects: true,
        });
        await client().wait(fork.runId, { timeoutMs: 20_000 });

        const { page, problems } = await signedIn(width, consoleTokens.operator.token);
        await page.goto(`${stack.consoleUrl}#/runs/${fork.runId}`);
        await page.locator(".timeline-end").waitFor();
        // The two replies that asked for the lookup and the refund are the original's; the answer is not.
        const models = page.locator(".timeline-model");
        await expect(models.count()).resolves.toBe(3);
        for (const at of [0, 1]) {
          await expect(models.nth(at).getAttribute("class")).resolves.toContain("is-taken-over");
          await expect(text(models.nth(at))).resolves.toContain(
            `from the original run This reply is ${original}'s`,
          );
        }
        await expect(models.nth(2).getAttribute("class")).resolves.not.toContain("is-taken-over");
        const lookup = page.locator(".timeline-tool[data-tool=lookup_order]");
        await expect(lookup.getAttribute("class")).resolves.toContain("is-taken-over");
        await expect(text(lookup)).resolves.toContain("taken over by the fork, not done again");
        const refund = page.locator(".timeline-tool[data-tool=refund]");
        await expect(refund.getAttribute("class")).resolves.not.toContain("is-taken-over");
        await expect(text(refund)).resolves.toMatch(
          /Input given with the fork by olga \(not the model's\).*"amount": 25/s,
        );
        await refund.locator("summary", { hasText: "The model's input in the original run" }).click();
        await expect(text(refund.locator(".fork-original-input pre"))).resolves.toContain('"amount": 40');
        expect(await fitsTheScreen(page)).toBe(true);
        expect(problems).toEqual([]);
      });

      it("after an approval with an edit, the conversation shows the model's proposal and the approved input", async () => {
        const { runId, approvalId } = await parkedRun(
          script(
            { calls: [{ name: "refund", input: { chargeId: `ch_e${width}`, amount: 150 } }] },
            { text: "Refunded." },
          ),
          `u-edit-${width}`,
        );
        const { page, problems } = await signedIn(width, consoleTokens.alice.token);
        await openApprovalPage(page, approvalId);
        await page.getByLabel("amount").fill("120");
        await page.locator("#approve-edited").click();
        await page.locator(".outcome", { hasText: "You approved this call with your edits" }).waitFor();
        await client().wait(runId, { timeoutMs: 20_000 });
        // The page reads the conversation again until the run ends.
        const call = page.locator(".transcript .tool-call.is-edited");
        await call.waitFor({ timeout: 15_000 });
        await expect(text(call)).resolves.toMatch(
          /calls refund\s*Proposed by the model.*"amount":\s*150.*Approved with an edit by alice \(what ran\).*"amount": 120/s,
        );
        expect(await fitsTheScreen(page)).toBe(true);
        expect(problems).toEqual([]);
      });

      it("shows the reject option chosen after a reload and in History, the reason as a reason; a cancelled approval is not decided", async () => {
        const { approvalId } = await parkedRun(
          script({ calls: [{ name: "send_email", input: { to: "ada@example.com", body: "Hello" } }] }),
          `u-option-${width}`,
        );
        const { page, problems } = await signedIn(width, consoleTokens.alice.token);
        await openApprovalPage(page, approvalId);
        await page.getByLabel("Reason to reject").fill("Ada moved");
        await page.getByRole("button", { name: "Wrong customer" }).click();
        await page.locator(".outcome", { hasText: "You rejected this call as “Wrong customer”" }).waitFor();
        await page.reload();
        const header = page.locator(".approval-header");
        await header.locator(".status", { hasText: "rejected" }).waitFor();
        await expect(text(header.locator(".status"))).resolves.toMatch(
          /^rejected as “Wrong customer” by alice/,
        );
        await expect(text(header.locator(".comment"))).resolves.toBe("Reviewer's reason: Ada moved");

        await page.goto(`${stack.consoleUrl}#/history`);
        const historyRow = page.locator(`.history-row[data-approval-id="${approvalId}"]`);
        await historyRow.waitFor();
        await expect(text(historyRow.locator(".status"))).resolves.toMatch(
          /^rejected as “Wrong customer” by alice/,
        );
        await expect(text(historyRow.locator(".facts"))).resolves.toMatch(
          /Rejected asWrong customer.*Reviewer's reasonAda moved/s,
        );

        const cancelled = await parkedRun(
          script({ calls: [{ name: "refund", input: { chargeId: `ch_c${width}`, amount: 300 } }] }),
          `u-cancel-${width}`,
        );
        await client().cancel(cancelled.runId);
        await waitUntil(
          async () => (await client().approvals.get(cancelled.approvalId)).status === "cancelled",
        );
        await openApprovalPage(page, cancelled.approvalId);
        const requested = page.locator(".approval-header .fact-requested");
        await expect(text(requested)).resolves.not.toContain("decided");
        await expect(text(requested)).resolves.toContain("withdrawn: the run was cancelled");
        expect(await fitsTheScreen(page)).toBe(true);
        expect(problems).toEqual([]);
      });

      it("shows the fallbacks each model step took, and the models a failed step tried", async () => {
        const answered = await finishedRun(
          script({ text: "From the fallback." }),
          `u-models-${width}`,
          "flaky",
        );
        const failed = await finishedRun(script({ text: "Never read." }), `u-models-${width}`, "broken");
        const { page, problems } = await signedIn(width, consoleTokens.operator.token);
        await page.goto(`${stack.consoleUrl}#/runs/${answered}`);
        await page.locator(".timeline-end").waitFor();
        await expect(text(page.locator(".timeline-model"))).resolves.toMatch(
          /Model step 1 default answered.*Fell back: flaky \(unreachable\) → default/s,
        );
        await page.goto(`${stack.consoleUrl}#/runs/${failed}`);
        await page.getByRole("heading", { name: `Run ${failed}` }).waitFor();
        await expect(text(page.locator(".timeline-end"))).resolves.toMatch(
          /TG_MODEL_FAILED.*Models tried: broken \(unreachable\) → gone; none answered/s,
        );
        expect(await fitsTheScreen(page)).toBe(true);
        expect(problems).toEqual([]);
      });

      it("offers the run's creator no decision the server would refuse", async () => {
        const created = await fetch(`${stack.api.url}/v1/runs`, {
          method: "POST",
          headers: { authorization: `Bearer ${extraTokens.desk.token}`, "content-type": "application/json" },
          body: JSON.stringify({
            input: script({ calls: [{ name: "refund", input: { chargeId: `ch_d${width}`, amount: 500 } }] }),
            userContext: { userId: `u-desk-${width}` },
          }),
        });
        expect(created.status).toBe(202);
        const { runId } = (await created.json()) as { runId: string };
        const approval = await waitUntil(async () => (await client().approvals.list({ runId }))[0]);
        const { page, problems } = await signedIn(width, extraTokens.desk.token);
        await openApprovalPage(page, approval.approvalId);
        await page.locator(".decision .notice.not-yours").waitFor();
        await expect(text(page.locator(".decision .notice.not-yours"))).resolves.toMatch(
          /^You may not decide this approval: requester is never approver: "desk" created this run/,
        );
        await expect(page.locator(".decision button").count()).resolves.toBe(0);
        expect(problems).toEqual([]);
      });

      it("a refused decision moves no button: the refusal is said under them", async () => {
        const { approvalId } = await parkedRun(
          script({
            calls: [{ name: "wire_transfer", input: { iban: "DE89370400440532013000", amount: 900 } }],
          }),
          `u-refused-${width}`,
        );
        const { page, problems } = await signedIn(width, extraTokens.finance.token);
        await openApprovalPage(page, approvalId);
        const buttons = ["#approve", "#reject"];
        const boxes = async () =>
          Promise.all(buttons.map(async (selector) => page.locator(selector).boundingBox()));
        await page.locator("#approve").scrollIntoViewIfNeeded();
        const before = await boxes();
        // Fiona loses the role the rule asks for while her page is open: the server refuses her decision.
        stack.tokenSet.replace([
          ...allTokens.filter((entry) => entry.subject !== "fiona"),
          { ...extraTokens.finance, roles: ["approvals:read", "approvals:decide"] },
        ]);
        try {
          await page.locator("#approve").click();
          const status = page.locator(".decision-status", { hasText: "Not allowed" });
          await status.waitFor();
          await expect(text(status)).resolves.toContain('approval rule "finance-only"');
          expect(await boxes()).toEqual(before);
        } finally {
          stack.tokenSet.replace(allTokens);
        }
        expect((await client().approvals.get(approvalId)).status).toBe("pending");
        expect(problems).toEqual([]);
      });
    });
  }

  it("at 390 px a run's page does not scroll sideways on a long unbroken answer", async () => {
    const runId = await finishedRun(script({ text: "x".repeat(600) }), "u-long-answer");
    const { page, problems } = await signedIn(390, consoleTokens.operator.token);
    await page.goto(`${stack.consoleUrl}#/runs/${runId}`);
    await page.locator(".timeline-end .answer-text").waitFor();
    expect(await fitsTheScreen(page)).toBe(true);
    expect(problems).toEqual([]);
  });

  it("at 1280x800 the decision buttons stay in view beside a long form", async () => {
    const input = Object.fromEntries(longFormFields.map((name) => [name, `${name} value`]));
    const { approvalId } = await parkedRun(
      script({ calls: [{ name: "update_customer", input }] }),
      "u-long-form",
    );
    const { page, problems } = await signedIn(1280, consoleTokens.alice.token);
    await page.setViewportSize({ width: 1280, height: 800 });
    await openApprovalPage(page, approvalId);
    const inView = async (selector: string) => {
      const box = await page.locator(selector).boundingBox();
      return box !== null && box.y >= 0 && box.y + box.height <= 800;
    };
    // The form is longer than the window: its last field is below it.
    expect(await inView(`[id$="-${longFormFields.at(-1)}"]`)).toBe(false);
    expect(await inView("#approve")).toBe(true);
    expect(await inView("#reject")).toBe(true);
    // Half-way through the form, and at its end, they are still there.
    await page.locator(`[id$="-${longFormFields[8]}"]`).scrollIntoViewIfNeeded();
    expect(await inView("#approve")).toBe(true);
    await page.getByLabel("Reason to reject").scrollIntoViewIfNeeded();
    expect(await inView("#approve")).toBe(true);
    expect(await inView("#reject")).toBe(true);
    expect(problems).toEqual([]);
  });
});
