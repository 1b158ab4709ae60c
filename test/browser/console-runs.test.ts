import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { script } from "../helpers/script.js";
import { waitUntil } from "../helpers/wait-until.js";
import { consoleTokens, type IConsoleStack, type ISession, startConsoleStack } from "./console-stack.js";

/*
 * The Runs view as an operator uses it, in real chromium at a laptop's and a phone's width, against the
 * real API, worker, Redis and scripted model: filter the runs by status and user, see a new run appear
 * and a parked one finish without a reload, open a run's page, read its timeline (model steps, a tool
 * call's output, an approval decided with an edit) and follow the links to the thread's other run and to
 * the approval. Every step waits on what the page shows or on the run's own end, never on a fixed time.
 */

const widths = [1280, 390] as const;

describe("the Runs view in a browser", () => {
  let stack: IConsoleStack;
  beforeAll(async () => {
    stack = await startConsoleStack("console-runs");
  }, 60_000);
  afterAll(() => stack?.close());

  const finished = async (userId: string, input: string, threadId?: string) => {
    const { runId } = await stack.harness.client.run({
      input,
      userContext: { userId },
      ...(threadId ? { threadId } : {}),
    });
    await stack.harness.client.wait(runId, { timeoutMs: 20_000 });
    return runId;
  };
  const parked = async (userId: string, input: string, threadId?: string) => {
    const { runId } = await stack.harness.client.run({
      input,
      userContext: { userId },
      ...(threadId ? { threadId } : {}),
    });
    const approval = await waitUntil(async () => (await stack.harness.client.approvals.list({ runId }))[0], {
      message: `${runId} parked`,
    });
    return { runId, approval };
  };

  async function signedIn(width: number): Promise<ISession> {
    const session = await stack.newSession();
    await session.page.setViewportSize({ width, height: width < 600 ? 844 : 900 });
    await session.signIn(consoleTokens.operator.token);
    return session;
  }

  const rowIds = (page: Page) =>
    page.locator(".run-row").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-run-id")));
  const text = async (locator: Locator) => (await locator.textContent()) ?? "";
  /** Set on the page's window: still there later means the page was never reloaded. */
  const markPage = (page: Page) => page.evaluate("window.notReloaded = true");
  const stillSamePage = (page: Page) => page.evaluate<boolean>("window.notReloaded === true");
  const fitsTheScreen = (page: Page) =>
    page.evaluate<boolean>("document.documentElement.scrollWidth <= window.innerWidth");

  for (const width of widths) {
    describe(`at ${width} px`, () => {
      it("filters by status and user, and follows a new run and a decision live", async () => {
        const user = `u-runs-${width}`;
        const done = await finished(user, script({ text: "Your order is on its way." }));
        const waiting = await parked(
          user,
          script({ calls: [{ name: "refund", input: { chargeId: `ch_l${width}`, amount: 150 } }] }),
        );
        await finished(`u-someone-else-${width}`, script({ text: "Hello." }));
        const { page, problems } = await signedIn(width);
        // The section is in the top bar, reached from the keyboard like any link.
        await page.locator("#nav a[data-section=runs]").focus();
        await page.keyboard.press("Enter");
        await page.getByRole("heading", { name: "Runs", exact: true }).waitFor();
        await markPage(page);

        await page.getByLabel("User", { exact: true }).fill(user);
        await waitUntil(async () => (await rowIds(page)).join() === [waiting.runId, done].join(), {
          message: "only the user's two runs, newest first",
        });
        const waitingRow = page.locator(`.run-row[data-run-id="${waiting.runId}"]`);
        await expect(text(waitingRow)).resolves.toMatch(/waiting for approval.*u-runs.*refund.*1 pending/s);
        expect(page.url()).toContain(`user=${user}`);

        await page.getByLabel("Status").selectOption("completed");
        await waitUntil(async () => (await rowIds(page)).join() === done, {
          message: "only the completed run",
        });
        await expect(text(page.locator(`.run-row[data-run-id="${done}"]`))).resolves.toMatch(
          /completed.*Tokens.*Took/s,
        );

        // A run created while the page is open appears at the top, marked new, with no reload.
        await page.getByLabel("Status").selectOption("");
        await waitUntil(async () => (await rowIds(page)).length === 2);
        const fresh = await finished(user, script({ text: "A new question, answered." }));
        await waitUntil(async () => (await rowIds(page))[0] === fresh, {
          timeoutMs: 10_000,
          message: "the new run at the top",
        });
        expect(await page.locator(`.run-row[data-run-id="${fresh}"]`).getAttribute("class")).toContain(
          "is-new",
        );
        await page.locator(".new-runs", { hasText: "1 new run" }).click();
        await expect(
          page.evaluate<string>("document.activeElement.closest('.run-row')?.dataset.runId"),
        ).resolves.toBe(fresh);

        // The parked run's decision is followed too: its row turns completed by itself.
        await stack.harness.client.approvals.approve(waiting.approval.approvalId, { approver: "alice" });
        await waitUntil(async () => (await waitingRow.getAttribute("data-status")) === "completed", {
          timeoutMs: 10_000,
          message: "the decided run reads completed",
        });
        await expect(text(waitingRow)).resolves.toContain("1 decided");
        expect(await stillSamePage(page)).toBe(true);
        expect(await fitsTheScreen(page)).toBe(true);
        expect(problems).toEqual([]);
      });

      it("opens a run's page: its timeline, an approval decided with an edit, the thread's other run", async () => {
        const threadId = `t-runs-${width}`;
        const user = `u-thread-${width}`;
        const first = await parked(
          user,
          script(
            { calls: [{ name: "lookup_order", input: { orderId: `A-${width}` } }] },
            { calls: [{ name: "refund", input: { chargeId: `ch_t${width}`, amount: 150 } }] },
          ),
          threadId,
        );
        await stack.harness.client.approvals.approve(first.approval.approvalId, {
          approver: "alice",
          input: { chargeId: `ch_t${width}`, amount: 120 },
          comment: "Half of it was delivered",
        });
        await stack.harness.client.wait(first.runId, { timeoutMs: 20_000 });
        const second = await finished(user, script({ text: "Anything else?" }), threadId);

        const { page, problems } = await signedIn(width);
        await page.goto(`${stack.consoleUrl}#/runs?thread=${threadId}`);
        await waitUntil(async () => (await rowIds(page)).join() === [second, first.runId].join(), {
          message: "the thread's two runs",
        });
        await page.locator(`.run-row[data-run-id="${first.runId}"] .run-input a`).focus();
        await page.keyboard.press("Enter");
        await page.getByRole("heading", { name: `Run ${first.runId}` }).waitFor();
        await page.locator(".timeline-end").waitFor();

        // Three model steps, each with the model that answered and its tokens.
        const models = page.locator(".timeline-model");
        await expect(models.count()).resolves.toBe(3);
        // Each step says how long the model took, from the run's record.
        await expect(text(models.first())).resolves.toMatch(
          /Model step 1 default asked for 1 tool call in \d+ ms.*prompt.*completion tokens/s,
        );
        const lookup = page.locator(".timeline-tool[data-tool=lookup_order]");
        await expect(text(lookup)).resolves.toMatch(
          /lookup_order succeeded in \d+.*"orderId".*Output.*"delivered"/s,
        );

        const refund = page.locator(".timeline-tool[data-tool=refund]");
        await expect(text(refund)).resolves.toMatch(
          /refund succeeded.*needed a human's approval.*approved by alice, with an edit/s,
        );
        await expect(text(refund.locator(".comment"))).resolves.toContain("Half of it was delivered");
        const diffRow = refund.locator(".diff tbody tr");
        await diffRow.waitFor();
        await expect(text(diffRow)).resolves.toMatch(/amount.*150.*120/);
        await expect(text(refund)).resolves.toMatch(/Output.*"refunded": 120/s);
        await expect(text(page.locator(".timeline-end"))).resolves.toMatch(/Answer/);

        // The thread's other run, then back, then the approval in the inbox's own page.
        const toSecond = page.locator(`.thread-runs [data-run-id="${second}"] a`);
        await toSecond.click();
        await page.getByRole("heading", { name: `Run ${second}` }).waitFor();
        await page.locator(".timeline-end", { hasText: "Answer" }).waitFor();
        await page.locator(`.thread-runs [data-run-id="${first.runId}"] a`).click();
        await page.getByRole("heading", { name: `Run ${first.runId}` }).waitFor();
        await refund.getByRole("link", { name: "Open the approval" }).click();
        await page.locator(".approval-header", { hasText: "approved by alice" }).waitFor();
        expect(page.url()).toContain(`#/approvals/${encodeURIComponent(first.approval.approvalId)}`);
        expect(await fitsTheScreen(page)).toBe(true);
        expect(problems).toEqual([]);
      });

      it("follows a fork link and a re-run link from a run's page to the other run and back", async () => {
        const original = await finished(
          `u-origin-${width}`,
          script(
            { calls: [{ name: "lookup_order", input: { orderId: `F-${width}` } }] },
            { text: "It was delivered." },
          ),
        );
        const { response } = await stack.harness.client.getRun(original);
        const fromCallId = response!.toolResults[0]!.callId;
        const fork = await stack.harness.client.fork(original, { fromCallId });
        const rerun = await stack.harness.client.rerun(original);
        await Promise.all(
          [fork.runId, rerun.runId].map((runId) => stack.harness.client.wait(runId, { timeoutMs: 20_000 })),
        );
        const { page, problems } = await signedIn(width);
        const heading = (runId: string) => page.getByRole("heading", { name: `Run ${runId}` });
        const facts = page.locator(".run-header .run-facts");
        await page.goto(`${stack.consoleUrl}#/runs/${original}`);
        await heading(original).waitFor();

        // To the fork, which names the run and the call it came from, and back.
        await facts.getByRole("link", { name: fork.runId, exact: true }).click();
        await heading(fork.runId).waitFor();
        await expect(text(facts)).resolves.toMatch(new RegExp(`Fork of${original} from call ${fromCallId}`));
        await facts.getByRole("link", { name: original, exact: true }).click();
        await heading(original).waitFor();

        // To the re-run, which names its original, and back; the original lists both.
        await facts.getByRole("link", { name: rerun.runId, exact: true }).click();
        await heading(rerun.runId).waitFor();
        await expect(text(facts)).resolves.toContain(`Re-run of${original}`);
        await facts.getByRole("link", { name: original, exact: true }).click();
        await heading(original).waitFor();
        await expect(text(facts)).resolves.toMatch(
          new RegExp(`Re-run as${rerun.runId}.*Forked as${fork.runId}`, "s"),
        );
        expect(await fitsTheScreen(page)).toBe(true);
        expect(problems).toEqual([]);
      });

      it("filters by schedule, kept in the URL, and a scheduled run's page links to its schedule's runs", async () => {
        const schedule = await stack.harness.client.schedules.create({
          everyMs: 300,
          request: { input: script({ text: "tick" }), userContext: { userId: `u-sched-${width}` } },
        });
        await waitUntil(
          async () =>
            (await stack.harness.client.listRuns({ scheduleId: schedule.scheduleId })).runs.length >= 2,
          { message: "two ticks' runs" },
        );
        await stack.harness.client.schedules.pause(schedule.scheduleId);
        // Every tick taken before the pause has its run, and each has finished.
        const scheduled = await waitUntil(async () => {
          const view = await stack.harness.client.schedules.get(schedule.scheduleId);
          const { runs } = await stack.harness.client.listRuns({ scheduleId: schedule.scheduleId });
          const done = runs.every((run) => run.status === "completed");
          return runs.length === view.ticksFired && done ? runs.map((run) => run.runId) : undefined;
        });
        const { page, problems } = await signedIn(width);
        await page.goto(`${stack.consoleUrl}#/runs`);
        await page.getByRole("heading", { name: "Runs", exact: true }).waitFor();
        await page.getByLabel("Schedule", { exact: true }).fill(schedule.scheduleId);
        await waitUntil(async () => (await rowIds(page)).join() === scheduled.join(), {
          message: "only the schedule's runs, newest first",
        });
        expect(page.url()).toContain(`schedule=${schedule.scheduleId}`);

        // From a run's page, the schedule's link lists its runs again, the filter read from the URL.
        await page.locator(`.run-row[data-run-id="${scheduled[0]}"] .run-input a`).click();
        await page.getByRole("heading", { name: `Run ${scheduled[0]}` }).waitFor();
        await page
          .locator(".run-header .run-facts")
          .getByRole("link", { name: schedule.scheduleId, exact: true })
          .click();
        await page.getByRole("heading", { name: "Runs", exact: true }).waitFor();
        await waitUntil(async () => (await rowIds(page)).join() === scheduled.join(), {
          message: "the schedule's runs again",
        });
        await expect(page.getByLabel("Schedule", { exact: true }).inputValue()).resolves.toBe(
          schedule.scheduleId,
        );
        expect(await fitsTheScreen(page)).toBe(true);
        expect(problems).toEqual([]);
        await stack.harness.client.schedules.delete(schedule.scheduleId);
      });
    });
  }

  it("shows a parked call on its run's page with the way to decide it, and the run's end once decided", async () => {
    const { runId, approval } = await parked(
      "u-open",
      script({
        calls: [{ name: "send_email", input: { to: "ada@example.com", subject: "Hi", body: "Hello" } }],
      }),
    );
    const { page } = await signedIn(1280);
    await page.goto(`${stack.consoleUrl}#/runs/${runId}`);
    const open = page.locator(".timeline-open[data-tool=send_email]");
    await expect(text(open)).resolves.toMatch(/waiting for approval.*Every email is read first/s);
    const decide = open.getByRole("link", { name: "Decide it in the inbox" });
    expect(await decide.getAttribute("href")).toBe(`#/approvals/${encodeURIComponent(approval.approvalId)}`);
    await stack.harness.client.approvals.reject(approval.approvalId, { approver: "bob", reason: "Not now" });
    // The page reads the run again until it ends: the call becomes a rejected one, with who rejected it.
    await page.locator(".timeline-tool[data-tool=send_email]", { hasText: "rejected by bob" }).waitFor();
    await page.locator(".timeline-end").waitFor();
    await expect(page.locator(".timeline-open").count()).resolves.toBe(0);
  });

  it("is not offered to a token that may not read runs", async () => {
    const session = await stack.newSession();
    await session.signIn(consoleTokens.alice.token);
    expect(await session.page.locator("#nav a[data-section=runs]").isHidden()).toBe(true);
    await session.page.goto(`${stack.consoleUrl}#/runs`);
    await session.page.locator(".notice", { hasText: "may not read runs" }).waitFor();
  });
});
