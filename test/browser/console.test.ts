import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { script } from "../helpers/script.js";
import { waitUntil } from "../helpers/wait-until.js";
import { consoleTokens, type IConsoleStack, type ISession, startConsoleStack } from "./console-stack.js";

/*
 * The console in real headless chromium against the real API, worker, Redis and scripted model: what
 * a reviewer does, end to end. Each step waits on what the page shows (playwright's auto-waiting
 * locators) or on the run's own end, never on a fixed time.
 */

const customer = { userId: "u-ada" };

describe("the console in a browser", () => {
  let stack: IConsoleStack;
  let alice: ISession;
  beforeAll(async () => {
    stack = await startConsoleStack("console-browser");
    alice = await stack.newSession();
  }, 60_000);
  afterAll(() => stack?.close());

  /** A run whose model calls one tool, then answers with what the tools said (the script's end). */
  const parkRun = (name: string, input: unknown) =>
    stack.harness.client.run({ input: script({ calls: [{ name, input }] }), userContext: customer });

  const card = (page: Page, runId: string) => page.locator(`.approval-card[data-approval-id^="${runId}"]`);

  it("signs in with the keyboard, shows a parked refund live, and approves it with an edited amount", async () => {
    const { page } = alice;
    await page.goto(stack.consoleUrl);
    // Keyboard only: the token field has the focus, Enter submits.
    await page.keyboard.type(consoleTokens.alice.token);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Pending approvals" }).waitFor();
    await expect(page.locator("#who").textContent()).resolves.toContain("alice");
    // In the tab's session storage only: no cookie, nothing in local storage, not in the URL.
    expect(await page.evaluate<string>('sessionStorage.getItem("tollgate.token")')).toBe(
      consoleTokens.alice.token,
    );
    expect(await page.evaluate<string>("document.cookie + localStorage.length")).toBe("0");
    expect(page.url()).not.toContain(consoleTokens.alice.token);
    await page.locator(".summary", { hasText: "Nothing is waiting" }).waitFor();

    // The run parks after the page loaded: the approval arrives through the event stream.
    const { runId } = await parkRun("refund", { chargeId: "ch_1", amount: 150 });
    const refundCard = card(page, runId);
    await refundCard.waitFor();
    await expect(refundCard.textContent()).resolves.toMatch(
      /Refunds a charge.*"amount": 150.*Refund of 150 EUR is over 100.*user u-ada.*waiting.*expires in/s,
    );

    // Open it from the keyboard: the tool's name is a link.
    await refundCard.getByRole("link", { name: "refund" }).focus();
    await page.keyboard.press("Enter");
    await page.locator("#approve").waitFor();
    await page.locator(".transcript .message-assistant", { hasText: "calls refund" }).waitFor();

    // Checked against the tool's JSON Schema before sending: the errors sit next to the field.
    const amount = page.getByLabel("amount");
    const amountError = page.locator(".field-number .field-error");
    await amount.fill("lots");
    await page.locator("#approve-edited").click();
    await expect(amountError.textContent()).resolves.toBe("must be a number");
    await amount.fill("6000");
    await page.locator("#approve-edited").click();
    await expect(amountError.textContent()).resolves.toBe("must be at most 5000");
    expect(await amount.getAttribute("aria-invalid")).toBe("true");

    await amount.fill("60");
    await page.getByLabel("Comment").fill("Half was refunded in the shop");
    await page.locator("#approve-edited").click();
    await page.locator(".outcome", { hasText: "You approved this call with your edits" }).waitFor();

    const response = await stack.harness.client.wait(runId, { timeoutMs: 20_000 });
    expect(response.status).toBe("completed");
    expect(response.toolResults[0]).toMatchObject({ toolName: "refund", output: { refunded: 60 } });
    expect(response.text).toContain('"refunded":60');

    // Back in the inbox the decided approval is gone.
    await page.locator("#nav a[data-section=inbox]").click();
    await page.locator(".summary", { hasText: "Nothing is waiting" }).waitFor();
  });

  it("rejects an email with a reason the model's final answer mentions", async () => {
    const { page } = alice;
    const { runId } = await parkRun("send_email", {
      to: "ada@example.com",
      subject: "Sorry",
      body: "Refund sent.",
    });
    await card(page, runId).getByRole("link", { name: "send_email" }).click();
    // The page checks the JSON Schema (zod's email pattern included) before sending...
    const fieldOf = (name: string) =>
      page.locator(".field", { has: page.locator("label", { hasText: new RegExp(`^${name}\\b`) }) });
    await fieldOf("to").locator("input").fill("ada..lovelace@example.com");
    await page.locator("#approve-edited").click();
    await expect(fieldOf("to").locator(".field-error").textContent()).resolves.toBe("must be a valid email");
    await fieldOf("to").locator("input").fill("ada@example.com");
    // ...and a refinement no JSON Schema can say comes back as the server's 422, next to its field too.
    const subject = fieldOf("subject").locator("input");
    await subject.fill("SORRY");
    await page.locator("#approve-edited").click();
    await page.locator(".decision-status .error", { hasText: "The server refused the edit" }).waitFor();
    await expect(fieldOf("subject").locator(".field-error").textContent()).resolves.toBe(
      "must not be all capitals",
    );
    expect(await subject.getAttribute("aria-invalid")).toBe("true");
    expect(await fieldOf("to").locator(".field-error").textContent()).toBe("");

    await page.locator("#reject").click();
    await expect(page.locator(".decision-status").textContent()).resolves.toContain("Say why");
    expect(await page.getByLabel("Reason to reject").getAttribute("aria-invalid")).toBe("true");
    await page.getByLabel("Reason to reject").fill("The customer asked us not to email her");
    await page.locator("#reject").click();
    await page.locator(".outcome", { hasText: "You rejected this call" }).waitFor();
    const response = await stack.harness.client.wait(runId, { timeoutMs: 20_000 });
    expect(response.toolResults[0]).toMatchObject({ toolName: "send_email", outcome: "rejected" });
    expect(response.text).toContain("The customer asked us not to email her");
  });

  it("shows a token without approvals:decide the approval and no decision buttons", async () => {
    const { runId } = await parkRun("refund", { chargeId: "ch_2", amount: 300 });
    const auditor = await stack.newSession();
    await auditor.signIn(consoleTokens.auditor.token);
    await expect(auditor.page.locator("#who").textContent()).resolves.toContain("read only");
    await card(auditor.page, runId).getByRole("link", { name: "refund" }).click();
    await auditor.page.locator(".read-only", { hasText: "may read approvals but not decide" }).waitFor();
    expect(await auditor.page.locator("button#approve, button#approve-edited, button#reject").count()).toBe(
      0,
    );
    expect(await auditor.page.getByRole("button", { name: /Approve|Reject/ }).count()).toBe(0);
    await auditor.context.close();
  });

  it("shows a decision another reviewer made first as that decision, not as an error", async () => {
    const { runId } = await parkRun("refund", { chargeId: "ch_3", amount: 400 });
    const bob = await stack.newSession();
    await bob.signIn(consoleTokens.bob.token);
    await alice.page.goto(`${stack.consoleUrl}#/inbox`);
    await card(alice.page, runId).getByRole("link", { name: "refund" }).click();
    await alice.page.locator("#approve").waitFor();
    await card(bob.page, runId).getByRole("link", { name: "refund" }).click();
    await bob.page.locator("#approve").click();
    await bob.page.locator(".outcome", { hasText: "You approved this call" }).waitFor();
    // Alice's page hears of it through the event stream; were she quicker to click, the 409 says the same.
    await alice.page
      .locator(".outcome .notice", { hasText: "Another reviewer decided first: approved by bob" })
      .waitFor();
    expect(await alice.page.locator(".outcome .error").count()).toBe(0);
    await stack.harness.client.wait(runId, { timeoutMs: 20_000 });
    await bob.context.close();
  });

  it("the history shows every decision, who made it, and the diff of the edit", async () => {
    const { page } = alice;
    await page.getByRole("link", { name: "History" }).click();
    const rows = page.locator(".history-row");
    await waitUntil(async () => (await rows.count()) >= 3, { message: "three decided approvals listed" });
    const refund = page.locator(".history-row", { hasText: "Half was refunded in the shop" });
    await expect(refund.locator(".status").textContent()).resolves.toMatch(/^approved by alice/);
    await expect(refund.locator(".diff tbody").textContent()).resolves.toBe("/amount15060");
    const email = page.locator(".history-row[data-tool=send_email]");
    await expect(email.textContent()).resolves.toMatch(
      /rejected by alice.*The customer asked us not to email her/s,
    );
    await page.locator(".history-row", { hasText: "approved by bob" }).waitFor();

    // Each filter is read back from the rows themselves: the list before the filter may have the same count.
    const listed = async () =>
      (await rows.evaluateAll((items) => items.map((item) => item.textContent ?? ""))).map((text) =>
        /approved by bob/.test(text) ? "bob" : /rejected by alice/.test(text) ? "rejected" : "other",
      );
    await page.locator("#history-approver").fill("bob");
    await waitUntil(async () => (await listed()).join() === "bob", { message: "only bob's decision" });
    await page.locator("#history-approver").fill("");
    await page.locator("#history-status").selectOption("rejected");
    await waitUntil(async () => (await listed()).join() === "rejected", { message: "only the rejection" });
  });

  it("asked no other host, and the Content-Security-Policy blocked nothing", () => {
    const origin = new URL(stack.consoleUrl).origin;
    expect(alice.requests.length).toBeGreaterThan(5);
    expect(alice.requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(alice.problems).toEqual([]);
  });

  it("is readable on a phone: nothing wider than the screen", async () => {
    const phone = await stack.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    const page = await phone.newPage();
    await page.goto(stack.consoleUrl);
    await page.getByLabel("API token").fill(consoleTokens.alice.token);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Pending approvals" }).waitFor();
    await page.locator(".approval-card").first().waitFor();
    for (const hash of [
      "#/inbox",
      `#/approvals/${await page.locator(".approval-card").first().getAttribute("data-approval-id")}`,
      "#/history",
    ]) {
      await page.goto(`${stack.consoleUrl}${hash}`);
      await page.locator("main h1").waitFor();
      // A string: it runs in the page, whose DOM types this Node project does not load.
      const overflow = await page.evaluate<number>(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth",
      );
      expect(overflow, hash).toBeLessThanOrEqual(0);
    }
    await phone.close();
  });
});
