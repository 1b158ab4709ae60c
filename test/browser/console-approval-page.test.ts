import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approvalNow,
  approvalPageGateway,
  callApi,
  crossingTtlMs,
  type IOpenPage,
  openAliceAt,
  openApproval,
  pageWidths,
  parkCall,
  rejectAllWaiting,
  toolResultOf,
  waitForFocus,
} from "./approval-page-stack.js";
import { type IConsoleStack, startConsoleStack } from "./console-stack.js";

/*
 * The approval page around the form, at a desktop's and a phone's width: the conversation beside the
 * decision or above it, the way on to the next approval, what the page says when the approval ends
 * without the reviewer (an expiry, a cancellation, another reviewer) and the look of one about to expire.
 * Real API, worker and Redis; the expiries are real approval TTLs running out.
 */

const box = async (page: Page, selector: string) => {
  const found = await page.locator(selector).boundingBox();
  if (found === null) throw new Error(`${selector} is not shown`);
  return found;
};

describe.each(pageWidths)("the approval page at %i px", (width) => {
  let stack: IConsoleStack;
  let alice: IOpenPage;
  let page: Page;
  beforeAll(async () => {
    stack = await startConsoleStack(`console-page-${width}`, approvalPageGateway);
    alice = await openAliceAt(stack, width);
    page = alice.page;
  }, 60_000);
  afterAll(() => stack?.close());

  const refund = (chargeId: string) => parkCall(stack, "refund", { chargeId, amount: 180, currency: "EUR" });
  const outcome = () => page.locator(".outcome");

  it(
    width >= 1024
      ? "shows the conversation beside the decision"
      : "shows the conversation above the decision, nothing wider than the screen",
    async () => {
      const { approvalId } = await refund("ch_layout");
      await openApproval(stack, page, approvalId);
      const conversation = await box(page, "section.transcript");
      const decision = await box(page, "section.decision");
      if (width >= 1024) {
        // Side by side: one column's right edge before the other's left, their tops level.
        expect(conversation.x + conversation.width).toBeLessThanOrEqual(decision.x);
        expect(Math.abs(conversation.y - (await box(page, ".approval-header")).y)).toBeLessThan(2);
        // Both start on the first screen.
        expect(decision.y).toBeLessThan(900);
      } else {
        expect(conversation.y + conversation.height).toBeLessThanOrEqual(decision.y);
        const overflow = await page.evaluate<number>(
          "document.documentElement.scrollWidth - document.documentElement.clientWidth",
        );
        expect(overflow).toBeLessThanOrEqual(0);
      }
    },
  );

  it("after a decision the focus is on a link to the next waiting approval, then on one back to the inbox", async () => {
    // Whatever earlier tests left waiting is settled first: "none left" must mean none.
    await rejectAllWaiting(stack);
    const first = await refund("ch_first");
    const second = await refund("ch_second");
    await openApproval(stack, page, first.approvalId);
    await page.locator("#approve").click();
    await page.locator(".outcome", { hasText: "You approved this call" }).waitFor();
    const next = page.locator("a#next-approval");
    await expect(next.getAttribute("href")).resolves.toBe(
      `#/approvals/${encodeURIComponent(second.approvalId)}`,
    );
    await waitForFocus(page, "next-approval");
    await page.keyboard.press("Enter");
    // Both approvals are refunds: the heading alone is also the decided page's, still shown for a moment
    // after the link is followed. The pending page is the one with the decision buttons.
    await page.locator("#reject").waitFor({ state: "visible" });
    await page.locator(".tool-heading", { hasText: "refund" }).waitFor();
    await expect(page.locator("#reject").isVisible()).resolves.toBe(true);
    await page.getByLabel("Reason to reject").fill("Duplicate");
    await page.locator("#reject").click();
    await page.locator(".outcome", { hasText: "You rejected this call" }).waitFor();
    await expect(next.getAttribute("href")).resolves.toBe("#/inbox");
    await expect(next.textContent()).resolves.toMatch(/inbox/i);
    await waitForFocus(page, "next-approval");
    expect((await toolResultOf(stack, first.runId)).input).toMatchObject({ chargeId: "ch_first" });
  });

  it("reports an expiry while the page is open as an expiry", async () => {
    const { approvalId, runId } = await parkCall(stack, "hold_order", { orderId: "A-1" });
    await openApproval(stack, page, approvalId);
    await page.locator(".approval-header.expiring-soon").waitFor();
    await outcome()
      .locator("p", { hasText: /expired/ })
      .waitFor({ timeout: 20_000 });
    await expect(outcome().textContent()).resolves.toMatch(/^This approval expired before anyone decided/);
    await expect(outcome().textContent()).resolves.not.toContain("Another reviewer");
    await expect(page.locator("#reject").count()).resolves.toBe(0);
    expect((await toolResultOf(stack, runId)).outcome).toBe("expired");
  });

  it("reports an expiry it learns of from a refused decision as an expiry too", async () => {
    const { approvalId } = await parkCall(stack, "hold_order", { orderId: "A-2" });
    // The page hears no events: it learns of the expiry only when its decision is refused (409).
    await page.route("**/v1/approvals/events", () => undefined);
    try {
      await page.reload();
      await openApproval(stack, page, approvalId);
      await waitForApprovalStatus(approvalId, "expired");
      await page.locator("#approve").click();
      await outcome()
        .locator("p", { hasText: /expired/ })
        .waitFor();
      await expect(outcome().textContent()).resolves.toMatch(/^This approval expired before anyone decided/);
    } finally {
      await page.unroute("**/v1/approvals/events");
      await page.reload();
    }
  });

  it("reports a cancelled run as a cancellation", async () => {
    const { approvalId, runId } = await refund("ch_cancel");
    await openApproval(stack, page, approvalId);
    expect((await callApi(stack, "service", "POST", `v1/runs/${runId}/cancel`)).status).toBe(202);
    await outcome()
      .locator("p", { hasText: /cancelled/ })
      .waitFor();
    await expect(outcome().textContent()).resolves.toMatch(/^The run was cancelled/);
    await expect(outcome().textContent()).resolves.not.toContain("Another reviewer");
  });

  it("reports a concurrent decision made through the API as another reviewer's", async () => {
    const { approvalId } = await refund("ch_bob");
    await openApproval(stack, page, approvalId);
    const decided = await callApi(stack, "bob", "POST", `v1/approvals/${approvalId}/approve`, {});
    expect(decided.status).toBe(200);
    await outcome()
      .locator(".notice", { hasText: "Another reviewer decided first: approved by bob" })
      .waitFor();
  });

  it("reports a concurrent decision it learns of from a refused decision as another reviewer's", async () => {
    const { approvalId } = await refund("ch_bob_409");
    // No events: the page learns of bob's decision only from its own refused one (409).
    await page.route("**/v1/approvals/events", () => undefined);
    try {
      await page.reload();
      await openApproval(stack, page, approvalId);
      expect((await callApi(stack, "bob", "POST", `v1/approvals/${approvalId}/approve`, {})).status).toBe(
        200,
      );
      await page.locator("#approve").click();
      await outcome()
        .locator(".notice", { hasText: "Another reviewer decided first: approved by bob" })
        .waitFor();
      await waitForFocus(page, "next-approval");
    } finally {
      await page.unroute("**/v1/approvals/events");
      await page.reload();
    }
  });

  it("marks an approval about to expire, as the time comes, not only when the page opens", async () => {
    const { approvalId, expiresAt } = await parkCall(stack, "close_account", { accountId: "acc-9" });
    await openApproval(stack, page, approvalId);
    const header = page.locator(".approval-header");
    // More than a minute left (and more than a tenth of its time): an ordinary approval.
    expect(expiresAt - Date.now(), "the page opened in time to see it before the mark").toBeGreaterThan(
      61_000,
    );
    await expect(header.getAttribute("class")).resolves.not.toContain("expiring-soon");
    await page.locator(".approval-header.expiring-soon").waitFor({ timeout: crossingTtlMs - 55_000 });
    await expect(page.locator(".approval-header .fact-expires").textContent()).resolves.toMatch(/expires in/);
    await callApi(stack, "alice", "POST", `v1/approvals/${approvalId}/reject`, { reason: "tidy" });
  });

  it("reported no page error and no Content-Security-Policy refusal", () => {
    expect(alice.problems).toEqual([]);
  });

  async function waitForApprovalStatus(approvalId: string, status: string) {
    await expect
      .poll(async () => (await approvalNow(stack, approvalId)).status, { timeout: 20_000, interval: 50 })
      .toBe(status);
  }
});
