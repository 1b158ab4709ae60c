/**
 * `npm run screenshots`: the console's inbox (on a laptop and on a phone), an opened approval with an
 * edited field, the history, the runs (on a laptop and on a phone) and a run's page, drawn by headless
 * chromium from a real stack (Redis, a worker, the scripted model, the API), saved in docs/ for
 * docs/CONSOLE.md and the README. Needs what the tests need: a Redis (REDIS_URL or 127.0.0.1:6379) and /usr/bin/chromium.
 */
import { fileURLToPath } from "node:url";
import { waitUntil } from "../helpers/wait-until.js";
import { consoleTokens, startConsoleStack } from "./console-stack.js";

const docs = fileURLToPath(new URL("../../docs/", import.meta.url));

/**
 * A scripted run: the customer's words beside the script the scripted model follows, the words on the
 * first line (the line a run listing shows).
 */
const conversation = (customer: string, ...entries: unknown[]) =>
  `{"customer": ${JSON.stringify(customer)},\n"script": ${JSON.stringify(entries)}}`;

const stack = await startConsoleStack("console-screenshots");
try {
  const { client } = stack.harness;
  const park = async (userId: string, input: string) => {
    const { runId } = await client.run({ input, userContext: { userId } });
    await waitUntil(async () => (await client.approvals.list({ runId }))[0], { timeoutMs: 20_000 });
    return runId;
  };
  const parkRefund = (userId: string, message: string, chargeId: string, amount: number) =>
    park(userId, conversation(message, { calls: [{ name: "refund", input: { chargeId, amount } }] }));
  const parkEmail = (userId: string, message: string, email: { to: string; subject: string; body: string }) =>
    park(userId, conversation(message, { calls: [{ name: "send_email", input: email }] }));
  // The history first: an edited refund, a rejected email, a refund approved as asked.
  const decided = [
    await parkRefund("u-grace", "Refund my order B-77, please", "ch_77", 240),
    await parkEmail("u-linus", "Email me the invoice", {
      to: "linus@example.com",
      subject: "Your invoice",
      body: "Attached.",
    }),
    await parkRefund("u-ken", "The kettle broke", "ch_12", 129),
  ];
  const [edited, rejected, approved] = await Promise.all(
    decided.map(async (runId) => (await client.approvals.list({ runId }))[0]),
  );
  if (!edited || !rejected || !approved) throw new Error("the runs did not park");
  await client.approvals.approve(edited.approvalId, {
    approver: "alice",
    input: { chargeId: "ch_77", amount: 120 },
    comment: "Half of the order was delivered",
  });
  await client.approvals.reject(rejected.approvalId, {
    approver: "bob",
    reason: "Invoices go out from the billing system",
  });
  await client.approvals.approve(approved.approvalId, { approver: "alice" });
  const [editedRun] = await Promise.all(decided.map((runId) => client.wait(runId, { timeoutMs: 20_000 })));
  // The customer writes again on the edited refund's thread; another customer's run fails.
  if (!editedRun) throw new Error("the edited refund's run did not finish");
  const followUp = await client.run({
    input: conversation("Thanks! When will the money arrive?", { text: "Within 5 working days." }),
    userContext: { userId: "u-grace" },
    threadId: editedRun.threadId,
  });
  const failing = await client.run({
    input: conversation("Cancel my subscription", { status: 400 }),
    userContext: { userId: "u-eve" },
  });
  await Promise.all([followUp, failing].map(({ runId }) => client.wait(runId, { timeoutMs: 20_000 })));

  // What waits now.
  const refundRun = await park(
    "u-ada",
    conversation(
      "My order A-1001 arrived broken. I want my 150 EUR back.",
      { calls: [{ name: "lookup_order", input: { orderId: "A-1001" } }] },
      { calls: [{ name: "refund", input: { chargeId: "ch_1001", amount: 150 } }] },
    ),
  );
  await parkEmail("u-bea", "Please confirm my address change", {
    to: "bea@example.com",
    subject: "Address changed",
    body: "Your new address is saved.",
  });
  await parkRefund("u-carl", "Refund the duplicate charge", "ch_55", 310);

  const session = await stack.newSession();
  const { page } = session;
  await page.setViewportSize({ width: 1100, height: 900 });
  await session.signIn(consoleTokens.alice.token);
  await waitUntil(async () => (await page.locator(".approval-card").count()) === 3);
  await page.screenshot({ path: `${docs}console-inbox.png`, fullPage: true });
  // On a phone, with one more arriving while the page is open: the notice sits above the list.
  await page.setViewportSize({ width: 390, height: 844 });
  await parkEmail("u-dan", "Send me the tracking number", {
    to: "dan@example.com",
    subject: "Your parcel",
    body: "Tracking: 00340434161094042557.",
  });
  await page.locator(".new-approvals").waitFor();
  await page.screenshot({ path: `${docs}console-inbox-phone.png`, fullPage: true });
  await page.setViewportSize({ width: 1100, height: 900 });

  await page.locator(`.approval-card[data-approval-id^="${refundRun}"] .tool-heading a`).click();
  await page.locator(".transcript .message-tool").waitFor();
  await page.getByLabel("amount").fill("75");
  // The edit is what approving would run: the page says so before the screenshot.
  await page.locator("#approve-edited:enabled").waitFor();
  // A window as tall as the page: the action bar, kept at a shorter window's foot, sits where it belongs.
  const pageHeight = await page.evaluate<number>("document.documentElement.scrollHeight");
  await page.setViewportSize({ width: 1100, height: pageHeight });
  await page.screenshot({ path: `${docs}console-approval.png`, fullPage: true });
  await page.setViewportSize({ width: 1100, height: 900 });

  await page.locator("#nav a[data-section=history]").click();
  await waitUntil(async () => (await page.locator(".history-row").count()) === 3);
  await page.screenshot({ path: `${docs}console-history.png`, fullPage: true });

  // The runs, as an operator sees them (a token that may read runs), then the edited refund's run.
  const operator = await stack.newSession();
  await operator.page.setViewportSize({ width: 1100, height: 900 });
  await operator.signIn(consoleTokens.operator.token);
  await operator.page.locator("#nav a[data-section=runs]").click();
  await waitUntil(async () => (await operator.page.locator(".run-row").count()) === 9);
  await operator.page.screenshot({ path: `${docs}console-runs.png`, fullPage: true });
  await operator.page.setViewportSize({ width: 390, height: 844 });
  await operator.page.getByLabel("Status").selectOption("completed");
  await waitUntil(async () => (await operator.page.locator(".run-row").count()) === 4);
  await operator.page.screenshot({ path: `${docs}console-runs-phone.png`, fullPage: true });
  await operator.page.setViewportSize({ width: 1100, height: 900 });
  await operator.page.goto(`${stack.consoleUrl}#/runs/${editedRun.runId}`);
  await operator.page.locator(".timeline-end").waitFor();
  await operator.page.locator(".edit-diff .diff").waitFor();
  await operator.page.locator(".thread-runs a").first().waitFor();
  await operator.page.screenshot({ path: `${docs}console-run.png`, fullPage: true });
  console.log(
    "saved docs/console-inbox.png, docs/console-inbox-phone.png, docs/console-approval.png, docs/console-history.png, docs/console-runs.png, docs/console-runs-phone.png, docs/console-run.png",
  );
} finally {
  await stack.close();
}
