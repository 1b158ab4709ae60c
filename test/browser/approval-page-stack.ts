import type { Page } from "playwright-core";
import { z } from "zod";
import { defineTool, EToolCallVerdict } from "../../src/contracts/index.js";
import { defineGateway } from "../../src/gateway/index.js";
import { script } from "../helpers/script.js";
import { waitUntil } from "../helpers/wait-until.js";
import { consoleTokens, type IConsoleStack } from "./console-stack.js";

/*
 * What the approval page's tests share: a gateway whose tools exercise the form (an enum, bounds, a
 * required string) and the clock (a short and a medium approval TTL), a signed-in page at a given width,
 * and what the API says a run did (the input its tool ran with), read over HTTP as any client would.
 */

/** A desktop and a phone: every behaviour of the page is checked at both. */
export const pageWidths = [1280, 390] as const;

/** How long `hold_order` waits for a human: long enough to open the page, short enough to see it expire. */
export const shortTtlMs = 6_000;
/** How long `close_account` waits: it crosses the page's one-minute "expiring soon" mark a few seconds in. */
export const crossingTtlMs = 68_000;

const refundInput = z.object({
  chargeId: z.string().min(1).describe("The charge to refund."),
  amount: z.number().positive().max(5000).describe("In the charge's currency."),
  currency: z.enum(["EUR", "USD", "GBP"]),
});

/** A refund (an enum, bounds, a required string), and two tools whose approvals expire soon. */
export const approvalPageTools = [
  defineTool({
    name: "refund",
    description: "Refunds a charge to the customer's card.",
    inputSchema: refundInput,
    policy: EToolCallVerdict.NEEDS_APPROVAL,
    execute: async ({ input }) => ({ refunded: input.amount, currency: input.currency }),
  }),
  defineTool({
    name: "hold_order",
    description: "Stops an order before it ships.",
    inputSchema: z.object({ orderId: z.string() }),
    policy: EToolCallVerdict.NEEDS_APPROVAL,
    approvalTtlMs: shortTtlMs,
    execute: async ({ input }) => ({ held: input.orderId }),
  }),
  defineTool({
    name: "close_account",
    description: "Closes the customer's account.",
    inputSchema: z.object({ accountId: z.string() }),
    policy: EToolCallVerdict.NEEDS_APPROVAL,
    approvalTtlMs: crossingTtlMs,
    execute: async ({ input }) => ({ closed: input.accountId }),
  }),
];

export const approvalPageGateway = defineGateway({ tools: approvalPageTools });

export interface IOpenPage {
  page: Page;
  /** Errors thrown in the page, and Content-Security-Policy refusals: a test ends expecting none. */
  problems: string[];
}

/** A page at `width` px (a phone's viewport below 500), not signed in. */
export async function openAt(stack: IConsoleStack, width: number): Promise<IOpenPage> {
  const phone = width < 500;
  const context = await stack.browser.newContext({
    viewport: { width, height: phone ? 844 : 900 },
    isMobile: phone,
  });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy|Refused to/i.test(message.text()))
      problems.push(`csp: ${message.text()}`);
  });
  return { page, problems };
}

/** A signed-in page as alice at `width` px. */
export async function openAliceAt(stack: IConsoleStack, width: number): Promise<IOpenPage> {
  const opened = await openAt(stack, width);
  const { page } = opened;
  await page.goto(stack.consoleUrl);
  await page.getByLabel("API token").fill(consoleTokens.alice.token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Pending approvals" }).waitFor();
  return opened;
}

/** Opens one approval's page, and waits for its decision form and its conversation. */
export async function openApproval(stack: IConsoleStack, page: Page, approvalId: string) {
  await page.goto(`${stack.consoleUrl}#/approvals/${encodeURIComponent(approvalId)}`);
  await page.locator("#reject").waitFor();
  await page.locator(".transcript .messages").waitFor();
}

/** A run whose model calls `name` once; resolves with the run and its approval once it parked. */
export async function parkCall(stack: IConsoleStack, name: string, input: unknown) {
  const { client } = stack.harness;
  const { runId } = await client.run({
    input: script({ calls: [{ name, input }] }),
    userContext: { userId: "u-ada" },
  });
  const approval = await waitUntil(async () => (await client.approvals.list({ runId }))[0], {
    timeoutMs: 20_000,
    message: `${name} parked`,
  });
  return { runId, approvalId: approval.approvalId, expiresAt: approval.expiresAt };
}

/** An API request with one of the console tests' tokens; the body as JSON, for the caller to read. */
export async function callApi<TBody = unknown>(
  stack: IConsoleStack,
  who: keyof typeof consoleTokens,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
): Promise<{ status: number; body: TBody }> {
  const response = await fetch(`${stack.api.url}/${path}`, {
    method,
    headers: {
      authorization: `Bearer ${consoleTokens[who].token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as TBody };
}

/** One tool call of a finished run, as `GET /v1/runs/:id` shows it: the input the tool ran with. */
export interface IRanCall {
  toolName: string;
  input: Record<string, unknown>;
  output?: Record<string, unknown>;
  outcome: string;
}

/** The finished run's one tool result: what actually ran (or did not), read over HTTP. */
export async function toolResultOf(stack: IConsoleStack, runId: string): Promise<IRanCall> {
  const path = `v1/runs/${encodeURIComponent(runId)}`;
  const response = await waitUntil(
    async () =>
      (await callApi<{ response?: { toolResults: IRanCall[] } }>(stack, "service", "GET", path)).body
        .response,
    { timeoutMs: 20_000, message: `run ${runId} finished` },
  );
  const [only, ...more] = response.toolResults;
  if (only === undefined || more.length > 0)
    throw new Error(`expected one tool result, got ${response.toolResults.length}`);
  return only;
}

/** The approval as the API shows it now. */
export async function approvalNow(stack: IConsoleStack, approvalId: string) {
  const path = `v1/approvals/${encodeURIComponent(approvalId)}`;
  return (await callApi<{ status: string }>(stack, "alice", "GET", path)).body;
}

/** Rejects every approval still waiting, so that a test can count on an empty inbox. */
export async function rejectAllWaiting(stack: IConsoleStack) {
  const { body } = await callApi<{ approvals: Array<{ approvalId: string }> }>(
    stack,
    "alice",
    "GET",
    "v1/approvals",
  );
  for (const { approvalId } of body.approvals)
    await callApi(stack, "alice", "POST", `v1/approvals/${encodeURIComponent(approvalId)}/reject`, {
      reason: "cleared by the test",
    });
}

/**
 * Waits until the focused element's id matches: focus often moves after a request the page makes (the
 * next approval is looked up first), so reading it once right after a click can come too early. Polls
 * with page.evaluate (waitForFunction would compile its check in the page, which the CSP refuses).
 */
export async function waitForFocus(page: Page, id: string | RegExp, timeoutMs = 10_000): Promise<void> {
  const matches = (focused: string) => (typeof id === "string" ? focused === id : id.test(focused));
  let focused = "";
  await waitUntil(
    async () => {
      focused = await page.evaluate<string>("document.activeElement?.id ?? ''");
      return matches(focused);
    },
    { timeoutMs, message: `the focus on ${String(id)} (it is on "${focused}")` },
  ).catch(() => {
    throw new Error(`Expected the focus on ${String(id)}; it is on "${focused}".`);
  });
}
