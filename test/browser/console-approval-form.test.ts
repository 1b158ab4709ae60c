import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approvalNow,
  approvalPageGateway,
  type IOpenPage,
  openAliceAt,
  openApproval,
  pageWidths,
  parkCall,
  toolResultOf,
  waitForFocus,
} from "./approval-page-stack.js";
import { type IConsoleStack, startConsoleStack } from "./console-stack.js";

/*
 * The approval page's decision form, at a desktop's and a phone's width, against the real API, worker
 * and Redis: an edited input is what runs, or nothing does, whichever button is pressed; what ran is read
 * from the run itself (`GET /v1/runs/:id`, the input its tool executed with), not from the page.
 */

const refund = { chargeId: "ch_180", amount: 180, currency: "EUR" };

describe.each(pageWidths)("the approval form at %i px", (width) => {
  let stack: IConsoleStack;
  let alice: IOpenPage;
  let page: Page;
  beforeAll(async () => {
    stack = await startConsoleStack(`console-form-${width}`, approvalPageGateway);
    alice = await openAliceAt(stack, width);
    page = alice.page;
  }, 60_000);
  afterAll(() => stack?.close());

  const decision = () => page.locator("section.decision");
  /** The one primary button a reviewer's eye (and Enter on it) goes to. */
  const primary = () => decision().locator("button.primary:visible");

  async function editAmountTo90() {
    const { runId, approvalId } = await parkCall(stack, "refund", refund);
    await openApproval(stack, page, approvalId);
    await page.getByLabel("amount").fill("90");
    return { runId, approvalId };
  }

  it("edited, the primary button approves the edit: the tool runs with 90", async () => {
    const { runId } = await editAmountTo90();
    await expect(primary().count()).resolves.toBe(1);
    const label = await primary().textContent();
    // The plain approve is gone while the form holds an edit: it cannot be pressed by accident.
    const plainApproveShown = await page.locator("#approve").isVisible();
    await primary().click();
    await page.locator(".outcome", { hasText: "You approved this call" }).waitFor();
    const ran = await toolResultOf(stack, runId);
    expect(ran).toMatchObject({ toolName: "refund", input: { amount: 90 }, output: { refunded: 90 } });
    expect(label).toBe("Approve with edits");
    expect(plainApproveShown).toBe(false);
    await page.locator(".outcome", { hasText: "You approved this call with your edits" }).waitFor();
  });

  it("edited, the form says what will run before anything is pressed", async () => {
    const { approvalId } = await editAmountTo90();
    await expect(decision().locator(".pending-edit").textContent()).resolves.toMatch(/amount.*180.*90/s);
    await page.getByLabel("amount").fill("180");
    await expect(decision().locator(".pending-edit").count()).resolves.toBe(0);
    await expect(primary().textContent()).resolves.toBe("Approve");
    expect((await approvalNow(stack, approvalId)).status).toBe("pending");
  });

  it("edited, Discard edits puts the model's input back and decides nothing; Approve then runs 180", async () => {
    const { runId, approvalId } = await editAmountTo90();
    await page.locator("#discard-edits").click();
    await expect(page.getByLabel("amount").inputValue()).resolves.toBe("180");
    // The focus goes back to the field that was edited, not to a button Enter would press.
    await waitForFocus(page, (await page.getByLabel("amount").getAttribute("id")) ?? "");
    expect((await approvalNow(stack, approvalId)).status).toBe("pending");
    await expect(page.locator("#discard-edits").isVisible()).resolves.toBe(false);
    await expect(primary().textContent()).resolves.toBe("Approve");
    await primary().click();
    await page.locator(".outcome", { hasText: "You approved this call." }).waitFor();
    const ran = await toolResultOf(stack, runId);
    expect(ran).toMatchObject({ input: { amount: 180 }, output: { refunded: 180 } });
  });

  it("edited, Reject rejects: nothing runs", async () => {
    const { runId } = await editAmountTo90();
    await page.getByLabel("Reason to reject").fill("Not this customer");
    await page.locator("#reject").click();
    await page.locator(".outcome", { hasText: "You rejected this call" }).waitFor();
    const ran = await toolResultOf(stack, runId);
    expect(ran.outcome).toBe("rejected");
    expect(ran.output).toBeUndefined();
  });

  it("an edit the page was not told of (no input event) still stops a plain approve", async () => {
    const { runId, approvalId } = await parkCall(stack, "refund", refund);
    await openApproval(stack, page, approvalId);
    // As autofill or an extension might: the value changes, no event fires.
    await page.getByLabel("amount").evaluate((field) => {
      (field as unknown as { value: string }).value = "90";
    });
    await page.locator("#approve").click();
    await page.locator(".decision-status", { hasText: "The form holds edits" }).waitFor();
    expect((await approvalNow(stack, approvalId)).status).toBe("pending");
    await expect(primary().textContent()).resolves.toBe("Approve with edits");
    await primary().click();
    await page.locator(".outcome", { hasText: "with your edits" }).waitFor();
    expect(await toolResultOf(stack, runId)).toMatchObject({ input: { amount: 90 } });
  });

  it("an enum is a select of its values, and the chosen one runs", async () => {
    const { runId, approvalId } = await parkCall(stack, "refund", { ...refund, chargeId: "ch_fx" });
    await openApproval(stack, page, approvalId);
    const currency = page.getByLabel("currency");
    await expect(currency.evaluate((field) => field.tagName)).resolves.toBe("SELECT");
    await expect(currency.locator("option").allTextContents()).resolves.toEqual(["EUR", "USD", "GBP"]);
    const chosen = () =>
      currency.evaluate(
        (field) =>
          (field as unknown as { selectedOptions: Array<{ text: string }> }).selectedOptions[0]?.text,
      );
    await expect(chosen()).resolves.toBe("EUR");
    await currency.selectOption({ label: "USD" });
    await expect(chosen()).resolves.toBe("USD");
    await primary().click();
    await page.locator(".outcome", { hasText: "with your edits" }).waitFor();
    expect(await toolResultOf(stack, runId)).toMatchObject({
      input: { amount: 180, currency: "USD" },
      output: { currency: "USD" },
    });
  });

  it("shows every problem of the form at once, and clears each as it is fixed", async () => {
    const { approvalId } = await parkCall(stack, "refund", { ...refund, chargeId: "ch_errors" });
    await openApproval(stack, page, approvalId);
    const errorOf = (name: string) =>
      page.locator(".field", { has: page.locator(`label[for$="-${name}"]`) }).locator(".field-error");
    await page.getByLabel("amount").fill("lots");
    await page.getByLabel("chargeId").fill("");
    await primary().click();
    await expect(errorOf("amount").textContent()).resolves.toBe("must be a number");
    await expect(errorOf("chargeId").textContent()).resolves.toBe("must not be empty");
    await page.locator(".decision-status .error", { hasText: "2 problems" }).waitFor();
    // The focus goes to the first field in the form's order with a problem.
    await waitForFocus(page, /-chargeId$/);
    await page.getByLabel("amount").fill("90");
    await expect(errorOf("amount").textContent()).resolves.toBe("");
    await expect(errorOf("chargeId").textContent()).resolves.toBe("must not be empty");
    expect((await approvalNow(stack, approvalId)).status).toBe("pending");
  });

  it("reported no page error and no Content-Security-Policy refusal", () => {
    expect(alice.problems).toEqual([]);
  });
});
