import type { Locator, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, EToolCallVerdict } from "../../src/contracts/index.js";
import { defineGateway } from "../../src/gateway/index.js";
import { script } from "../helpers/script.js";
import { waitUntil } from "../helpers/wait-until.js";
import {
  consoleTokens,
  consoleTools,
  type IConsoleStack,
  type ISession,
  startConsoleStack,
} from "./console-stack.js";

/*
 * The inbox as the person deciding reads it, in real chromium at a laptop's and a phone's width: times
 * that move, a badge and a run status that follow decisions, a notice that covers nothing, filters that
 * find by part of a name and survive a reload, and a revoked token that ends the session.
 */

/** A payment whose approval expires within a minute of being asked: always "about to expire". */
const urgentTool = defineTool({
  name: "wire_payment",
  description: "Pays a supplier today.",
  inputSchema: z.object({ iban: z.string(), amount: z.number() }),
  policy: EToolCallVerdict.NEEDS_APPROVAL,
  approvalTtlMs: 50_000,
  execute: async ({ input }) => ({ paid: input.amount }),
});

const gateway = defineGateway({ tools: [...consoleTools, urgentTool] });

const widths = [1280, 390] as const;

type TComputedStyle = (element: unknown) => Record<string, string>;

/** A computed style property, read in the page (this Node project does not load the DOM's types). */
const styleOf = (locator: Locator, property: string) =>
  locator.evaluate(
    (element, name) =>
      (globalThis as unknown as { getComputedStyle: TComputedStyle }).getComputedStyle(element)[name] ?? "",
    property,
  );

describe("the inbox stays true while it is open", () => {
  let stack: IConsoleStack;
  beforeAll(async () => {
    stack = await startConsoleStack("console-inbox-live", gateway);
  }, 60_000);
  afterAll(() => stack?.close());

  const park = async (userId: string, name: string, input: unknown) => {
    const { runId } = await stack.harness.client.run({
      input: script({ calls: [{ name, input }] }),
      userContext: { userId },
    });
    await waitUntil(async () => (await stack.harness.client.approvals.list({ runId }))[0], {
      message: `${runId} parked`,
    });
    return runId;
  };

  async function signedIn(width: number, token: string = consoleTokens.alice.token): Promise<ISession> {
    const session = await stack.newSession();
    await session.page.setViewportSize({ width, height: width < 600 ? 844 : 900 });
    await session.signIn(token);
    return session;
  }

  const card = (page: Page, runId: string) => page.locator(`.approval-card[data-approval-id^="${runId}"]`);
  const text = async (locator: Locator) => (await locator.textContent()) ?? "";

  for (const width of widths) {
    describe(`at ${width} px`, () => {
      it("counts the waiting and the time left on a timer, on the card and on the approval's page", async () => {
        const runId = await park("u-ada", "refund", { chargeId: `ch_t${width}`, amount: 150 });
        // Under a minute left, the time left counts in seconds too.
        const urgent = await park("u-ada", "wire_payment", { iban: "DE89370400440532013000", amount: 9 });
        const { page, context } = await signedIn(width);
        const requested = card(page, runId).locator(".fact-requested");
        const expires = card(page, urgent).locator(".fact-expires");
        await requested.waitFor();
        const [waitedBefore, expiresBefore] = [await text(requested), await text(expires)];
        expect(waitedBefore).toMatch(/waiting \d+ s/);
        expect(expiresBefore).toMatch(/expires in \d+ s/);
        // Seconds tick: well within 5 s both texts move on, without any event or reload.
        await waitUntil(async () => (await text(requested)) !== waitedBefore, {
          timeoutMs: 5_000,
          message: `the card's "${waitedBefore}" changed`,
        });
        await waitUntil(async () => (await text(expires)) !== expiresBefore, {
          timeoutMs: 5_000,
          message: `the card's "${expiresBefore}" changed`,
        });

        await card(page, runId).getByRole("link", { name: "refund" }).click();
        const pageWaited = page.locator(".approval-header .fact-requested");
        await pageWaited.waitFor();
        const onPage = await text(pageWaited);
        await waitUntil(async () => (await text(pageWaited)) !== onPage, {
          timeoutMs: 5_000,
          message: `the page's "${onPage}" changed`,
        });
        await context.close();
      });

      it("marks an approval about to expire, and only that one", async () => {
        const calm = await park("u-ada", "refund", { chargeId: `ch_c${width}`, amount: 120 });
        const urgent = await park("u-ada", "wire_payment", { iban: "DE89370400440532013000", amount: 10 });
        const { page, context } = await signedIn(width);
        await card(page, urgent).waitFor();
        expect(await card(page, urgent).getAttribute("class")).toContain("expiring-soon");
        expect(await card(page, calm).getAttribute("class")).not.toContain("expiring-soon");
        // It looks different, not only in the markup.
        const edge = (runId: string) => styleOf(card(page, runId), "borderLeftColor");
        expect(await edge(urgent)).not.toBe(await edge(calm));
        await context.close();
      });

      it("the badge and the run's status follow the reviewer's own decision", async () => {
        const runId = await park("u-ada", "refund", { chargeId: `ch_b${width}`, amount: 130 });
        const { page, context } = await signedIn(width);
        await card(page, runId).waitFor();
        const badge = page.locator("#pending-count");
        // Other tests' approvals expire meanwhile: the badge is checked against the listing itself.
        const pendingNow = async () => (await stack.harness.client.approvals.list()).length;
        await waitUntil(async () => (await text(badge)) === String(await pendingNow()), {
          message: "the badge counts what waits",
        });
        await card(page, runId).getByRole("link", { name: "refund" }).click();
        const runLine = page.locator(".transcript .field-hint", { hasText: `Run ${runId}` });
        await expect(text(runLine)).resolves.not.toMatch(/completed/);
        await page.locator("#approve").click();
        await page.locator(".outcome", { hasText: "You approved this call" }).waitFor();
        await stack.harness.client.wait(runId, { timeoutMs: 20_000 });
        // Still on the approval's page: the badge and the run's line catch up by themselves.
        await waitUntil(async () => (await text(badge)) === String((await pendingNow()) || ""), {
          timeoutMs: 5_000,
          message: "the badge lost the approval just decided",
        });
        await waitUntil(async () => /: completed$/.test(await text(runLine)), {
          timeoutMs: 5_000,
          message: "the run reads completed",
        });
        await context.close();
      });

      it("tells of a new approval in the page's flow, covering no card, until it is clicked", async () => {
        // Enough cards to fill a phone's screen.
        for (const [index, amount] of [110, 111, 112].entries())
          await park(`u-fill${index}`, "refund", { chargeId: `ch_f${width}${index}`, amount });
        const { page, context } = await signedIn(width);
        await page.locator(".approval-card").nth(2).waitFor();
        const runId = await park("u-new", "send_email", { to: "n@example.com", subject: "Hi", body: "." });
        await card(page, runId).waitFor();
        const notice = page.locator(".new-approvals");
        await notice.waitFor();
        await expect(text(notice)).resolves.toMatch(/1 new approval waiting/);
        // Painted on its own background, in the flow (not fixed over the list).
        const look = {
          position: await styleOf(notice, "position"),
          background: await styleOf(notice, "backgroundColor"),
        };
        expect(look.position).not.toBe("fixed");
        expect(look.background).not.toBe("rgba(0, 0, 0, 0)");
        // Nothing that shows this text, wherever it is, lies over a card.
        const overlaps = await page.evaluate<string[]>(`(() => {
          const cards = [...document.querySelectorAll(".approval-card")].map((card) => card.getBoundingClientRect());
          const telling = [...document.querySelectorAll("body *")].filter((element) =>
            /new approvals? waiting/.test(element.textContent ?? "") && element.children.length === 0);
          const hits = [];
          for (const element of telling) {
            const box = element.getBoundingClientRect();
            if (box.width <= 1 || box.height <= 1) continue;
            for (const card of cards)
              if (box.left < card.right && card.left < box.right && box.top < card.bottom && card.top < box.bottom)
                hits.push(element.className || element.tagName);
          }
          return hits;
        })()`);
        expect(overlaps).toEqual([]);
        await notice.click();
        await notice.waitFor({ state: "detached" });
        await context.close();
      });

      it("finds a user by part of the name, says when filters hide everything, and keeps them in the URL", async () => {
        const ivan = await park(`u-ivan${width}`, "refund", { chargeId: `ch_i${width}`, amount: 140 });
        const ada = await park("u-ada", "refund", { chargeId: `ch_a${width}`, amount: 141 });
        const { page, context } = await signedIn(width);
        await card(page, ada).waitFor();
        // Only tools that can need approval are offered.
        const tools = await page
          .locator("#filter-tool option")
          .evaluateAll((options) => options.map((option) => (option as unknown as { value: string }).value));
        expect(tools.sort()).toEqual(["", "refund", "send_email", "wire_payment"]);

        const users = () =>
          page.locator(".approval-card").evaluateAll((cards) => cards.map((card) => card.textContent ?? ""));
        await page.locator("#filter-user").fill("U-IV");
        await card(page, ada).waitFor({ state: "detached" });
        await card(page, ivan).waitFor();
        expect((await users()).every((listed) => /user u-ivan/.test(listed))).toBe(true);

        await page.locator("#filter-tool").selectOption("refund");
        await waitUntil(() => page.url().includes("tool=refund") && /user=U-IV/i.test(page.url()), {
          message: `filters in ${page.url()}`,
        });
        await page.reload();
        await card(page, ivan).waitFor();
        expect(await page.locator("#filter-user").inputValue()).toBe("U-IV");
        expect(await page.locator("#filter-tool").inputValue()).toBe("refund");
        expect(await card(page, ada).count()).toBe(0);

        await page.locator("#filter-user").fill("nobody-at-all");
        const summary = page.locator(".summary");
        await summary.filter({ hasText: "No pending approval matches these filters" }).waitFor();
        expect(await text(summary)).not.toContain("Nothing is waiting");
        await page.getByRole("button", { name: "Clear the filters" }).click();
        await card(page, ada).waitFor();
        expect(await page.locator("#filter-user").inputValue()).toBe("");
        expect(page.url()).not.toContain("user=");
        await context.close();
      });

      it("the history also finds a user by part of the id and keeps its filters in the URL", async () => {
        const runId = await park(`u-hist${width}`, "refund", { chargeId: `ch_h${width}`, amount: 160 });
        const [approval] = await stack.harness.client.approvals.list({ runId });
        await stack.harness.client.approvals.reject(approval!.approvalId, { approver: "bob", reason: "No" });
        const { page, context } = await signedIn(width);
        await page.goto(`${stack.consoleUrl}#/history?status=rejected&user=HIST${width}`);
        const row = page.locator(`.history-row[data-approval-id^="${runId}"]`);
        await row.waitFor();
        expect(await page.locator(".history-row").count()).toBe(1);
        expect(await page.locator("#history-status").inputValue()).toBe("rejected");
        expect(await page.locator("#history-user").inputValue()).toBe(`HIST${width}`);
        const tools = await page
          .locator("#history-tool option")
          .evaluateAll((options) => options.map((option) => (option as unknown as { value: string }).value));
        expect(tools).not.toContain("lookup_order");
        await page.locator("#history-approver").fill("alice");
        await row.waitFor({ state: "detached" });
        await waitUntil(() => page.url().includes("approver=alice"), {
          message: `approver in ${page.url()}`,
        });
        await page.reload();
        expect(await page.locator("#history-approver").inputValue()).toBe("alice");
        await page.locator(".summary", { hasText: "No decided approvals match" }).waitFor();
        await context.close();
      });

      it("goes back to sign-in when the event stream, reconnecting after a drop, is refused", async () => {
        const { page, context } = await signedIn(width, consoleTokens.bob.token);
        await page.locator("body[data-live=live]").waitFor({ state: "attached" });
        const refused: string[] = [];
        page.on("response", (response) => {
          if (response.status() === 401) refused.push(new URL(response.url()).pathname);
        });
        // The page's listing reads (the inbox's, the badge's after an event, the catch-up after a gap) are
        // held unanswered from here: whether one of them or the reconnection reached the server first was a
        // race, and a listing refused first ended the session before the stream was asked (CI, 05:46 UTC).
        // Held, the reconnection is what meets the revoked token.
        const held: Route[] = [];
        await page.route(
          (url) => url.pathname === "/v1/approvals",
          (route) => void held.push(route),
        );
        const { bob: _revoked, ...others } = consoleTokens;
        stack.tokenSet.replace(Object.values(others));
        try {
          // A dropped connection (the server's side cuts every socket): the open stream ends, and its
          // reconnection is refused.
          stack.api.app.server.closeAllConnections();
          await page.locator(".sign-in .notice", { hasText: "revoked or expired" }).waitFor();
          expect(refused[0]).toBe("/v1/approvals/events");
        } finally {
          stack.tokenSet.replace(Object.values(consoleTokens));
        }
        await context.close();
      });

      it("goes back to sign-in, saying why, when the token is revoked while the page is open", async () => {
        const { page, context } = await signedIn(width, consoleTokens.bob.token);
        const { bob: _revoked, ...others } = consoleTokens;
        stack.tokenSet.replace(Object.values(others));
        try {
          // The next call the page makes (here: the listing read when an approval arrives) is refused.
          await park("u-ada", "refund", { chargeId: `ch_r${width}`, amount: 150 });
          await page.locator(".sign-in .notice", { hasText: "revoked or expired" }).waitFor();
          expect(await page.locator("#nav").isHidden()).toBe(true);
          expect(await page.locator("#who").textContent()).toBe("");
          expect(await page.evaluate<string | null>('sessionStorage.getItem("tollgate.token")')).toBeNull();
        } finally {
          stack.tokenSet.replace(Object.values(consoleTokens));
        }
        await context.close();
      });
    });
  }
});
