import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../src/contracts/index.js";
import { defineGateway } from "../../src/gateway/index.js";
import { script } from "../helpers/script.js";
import { consoleTokens, type IConsoleStack, type ISession, startConsoleStack } from "./console-stack.js";

/*
 * Resume, Rerun and "Fork from this call" on a run's page, as a lead does them, in real chromium at a
 * laptop's and a phone's width against the real API, worker, Redis and scripted model. Each asks first in
 * a dialog listing the run's completed calls that will run again; the request says repeatEffects only
 * once the person confirmed. Payments are counted where the worker runs them.
 */

const widths = [1280, 390] as const;

/** Payments made, by their reference. */
const payments = new Map<string, number>();
const paid = (ref: string) => payments.get(ref) ?? 0;

const replayGateway = defineGateway({
  tools: [
    defineTool({
      name: "pay",
      description: "Pays an invoice.",
      inputSchema: z.object({ ref: z.string(), amount: z.number() }),
      execute: async ({ input }) => {
        payments.set(input.ref, paid(input.ref) + 1);
        return { paid: input.amount, ref: input.ref };
      },
    }),
    defineTool({
      name: "lookup_order",
      description: "Reads an order.",
      inputSchema: z.object({ orderId: z.string() }),
      readOnly: true,
      execute: async ({ input }) => ({ orderId: input.orderId, total: 40 }),
    }),
  ],
});

describe("Resume, Rerun and Fork on a run's page", () => {
  let stack: IConsoleStack;
  beforeAll(async () => {
    stack = await startConsoleStack("console-replay", replayGateway);
  }, 60_000);
  afterAll(() => stack?.close());

  const finished = async (input: string) => {
    const { runId } = await stack.harness.client.run({ input, userContext: { userId: "u-replay" } });
    await stack.harness.client.wait(runId, { timeoutMs: 20_000 }).catch(() => undefined);
    return runId;
  };

  async function signedIn(width: number, token: string = consoleTokens.lead.token): Promise<ISession> {
    const session = await stack.newSession();
    await session.page.setViewportSize({ width, height: width < 600 ? 844 : 900 });
    await session.signIn(token);
    return session;
  }

  const text = async (locator: Locator) => (await locator.textContent()) ?? "";
  const fitsTheScreen = (page: Page) =>
    page.evaluate<boolean>("document.documentElement.scrollWidth <= window.innerWidth");
  /** Whether the whole dialog is within the viewport's width. */
  const dialogFits = (page: Page) =>
    page.evaluate<boolean>(
      "(() => { const box = document.querySelector('dialog.replay-dialog').getBoundingClientRect(); return box.left >= 0 && box.right <= window.innerWidth; })()",
    );
  const runHeading = (page: Page, runId: string) => page.getByRole("heading", { name: `Run ${runId}` });
  /** The bodies the page posted to a path ending so. */
  const posted = (session: ISession, ending: string) => {
    const bodies: unknown[] = [];
    session.page.on("request", (request) => {
      if (request.method() === "POST" && request.url().endsWith(ending))
        bodies.push(JSON.parse(request.postData() ?? "{}"));
    });
    return bodies;
  };
  /** The run id of the page now shown (`#/runs/<id>`). */
  const shownRunId = (page: Page) => decodeURIComponent(new URL(page.url()).hash.replace("#/runs/", ""));

  for (const width of widths) {
    describe(`at ${width} px`, () => {
      it("resumes a failed run: nothing runs again, the payment made before is kept", async () => {
        const ref = `inv-resume-${width}`;
        const original = await finished(
          script(
            { calls: [{ name: "pay", input: { ref, amount: 40 } }] },
            { status: 500, times: 3 },
            { text: `Paid ${ref}.` },
          ),
        );
        expect((await stack.harness.client.getRun(original)).status).toBe("failed");
        expect(paid(ref)).toBe(1);
        const session = await signedIn(width);
        const { page, problems } = session;
        const resumes = posted(session, "/resume");
        await page.goto(`${stack.consoleUrl}#/runs/${original}`);
        await runHeading(page, original).waitFor();

        await page.getByRole("button", { name: "Resume" }).click();
        const dialog = page.getByRole("dialog", { name: "Resume this run?" });
        await dialog.waitFor();
        await expect(text(dialog)).resolves.toMatch(
          /1 completed call is kept.*Completed calls that will run again.*None: a resume never runs a completed call again/s,
        );
        expect(await dialogFits(page)).toBe(true);
        expect(resumes).toEqual([]);
        await dialog.getByRole("button", { name: "Resume" }).click();

        // The resume's page opens: it names the run it continues, and finishes with the answer.
        await page.waitForURL((url) => url.hash.startsWith("#/runs/") && !url.hash.endsWith(original));
        const resumeId = shownRunId(page);
        await runHeading(page, resumeId).waitFor();
        const facts = page.locator(".run-header .run-facts");
        await expect(text(facts)).resolves.toContain(`Resume of${original}`);
        await page.locator(".timeline-end", { hasText: `Paid ${ref}.` }).waitFor();
        await expect(text(page.locator(".timeline-tool[data-tool=pay]"))).resolves.toMatch(/pay succeeded/);
        expect(paid(ref)).toBe(1);
        expect(resumes).toEqual([{}]);

        // The original names its resume, and offers no second one.
        await facts.getByRole("link", { name: original, exact: true }).click();
        await runHeading(page, original).waitFor();
        await expect(text(facts)).resolves.toContain(`Resumed as${resumeId}`);
        await expect(page.getByRole("button", { name: "Resume" }).count()).resolves.toBe(0);
        expect(await fitsTheScreen(page)).toBe(true);
        // The Runs list says where the resume comes from.
        await page.getByRole("link", { name: "← Runs" }).click();
        const row = page.locator(`.run-row[data-run-id="${resumeId}"]`);
        await expect(text(row)).resolves.toMatch(new RegExp(`completed.*Resume of${original}`, "s"));
        expect(await fitsTheScreen(page)).toBe(true);
        expect(problems).toEqual([]);
      });

      it("reruns only once the person confirmed the payment it repeats; Cancel creates nothing", async () => {
        const ref = `inv-rerun-${width}`;
        const original = await finished(
          script(
            {
              calls: [
                { name: "lookup_order", input: { orderId: ref } },
                { name: "pay", input: { ref, amount: 40 } },
              ],
            },
            { text: "Looked up and paid." },
          ),
        );
        expect(paid(ref)).toBe(1);
        const session = await signedIn(width);
        const { page, problems } = session;
        const reruns = posted(session, "/rerun");
        await page.goto(`${stack.consoleUrl}#/runs/${original}`);
        await runHeading(page, original).waitFor();

        await page.getByRole("button", { name: "Rerun" }).click();
        const dialog = page.getByRole("dialog", { name: "Rerun this run?" });
        await dialog.waitFor();
        const listed = dialog.locator(".replay-call-list li");
        await expect(listed.count()).resolves.toBe(2);
        await expect(text(dialog.locator("li[data-tool=lookup_order]"))).resolves.toContain("read-only");
        await expect(text(dialog.locator("li[data-tool=pay]"))).resolves.toContain("changes things");
        await expect(text(dialog.locator(".replay-warning"))).resolves.toContain("not declared read-only");
        expect(await dialogFits(page)).toBe(true);
        // Cancel: the dialog closes, nothing was sent.
        await dialog.getByRole("button", { name: "Cancel" }).click();
        await dialog.waitFor({ state: "detached" });
        expect(reruns).toEqual([]);

        await page.getByRole("button", { name: "Rerun" }).click();
        await dialog.getByRole("button", { name: "Rerun and repeat 1" }).click();
        await page.waitForURL((url) => url.hash.startsWith("#/runs/") && !url.hash.endsWith(original));
        const rerunId = shownRunId(page);
        await runHeading(page, rerunId).waitFor();
        await expect(text(page.locator(".run-header .run-facts"))).resolves.toContain(`Re-run of${original}`);
        expect(reruns).toEqual([{ repeatEffects: true }]);
        await page.locator(".timeline-end", { hasText: "Looked up and paid." }).waitFor();
        // Confirmed: the payment ran again, as the dialog said it would.
        expect(paid(ref)).toBe(2);
        expect(await fitsTheScreen(page)).toBe(true);
        expect(problems).toEqual([]);
      });

      it("forks from a call, listing that call and the ones after it", async () => {
        const ref = `inv-fork-${width}`;
        const original = await finished(
          script(
            { calls: [{ name: "lookup_order", input: { orderId: ref } }] },
            { calls: [{ name: "pay", input: { ref, amount: 40 } }] },
            { text: "Paid after the lookup." },
          ),
        );
        const session = await signedIn(width);
        const { page, problems } = session;
        const forks = posted(session, "/fork");
        await page.goto(`${stack.consoleUrl}#/runs/${original}`);
        await runHeading(page, original).waitFor();

        // From the lookup: the lookup (read-only) and the payment after it run again.
        const lookup = page.locator(".timeline-tool[data-tool=lookup_order]");
        await lookup.getByRole("button", { name: "Fork from this call" }).click();
        const dialog = page.getByRole("dialog", { name: "Fork from this call?" });
        await dialog.waitFor();
        const tools = await dialog
          .locator(".replay-call-list li")
          .evaluateAll((items) => items.map((item) => item.getAttribute("data-tool")));
        expect(tools).toEqual(["lookup_order", "pay"]);
        expect(await dialogFits(page)).toBe(true);
        await dialog.getByRole("button", { name: "Cancel" }).click();
        await dialog.waitFor({ state: "detached" });

        // From the payment itself, confirmed.
        const pay = page.locator(".timeline-tool[data-tool=pay]");
        await pay.getByRole("button", { name: "Fork from this call" }).click();
        await dialog.waitFor();
        await expect(dialog.locator(".replay-call-list li").count()).resolves.toBe(1);
        await dialog.getByRole("button", { name: "Fork and repeat 1" }).click();
        await page.waitForURL((url) => url.hash.startsWith("#/runs/") && !url.hash.endsWith(original));
        const forkId = shownRunId(page);
        await runHeading(page, forkId).waitFor();
        const { response } = await stack.harness.client.getRun(original);
        const payCallId = response!.toolResults[1]!.callId;
        await expect(text(page.locator(".run-header .run-facts"))).resolves.toMatch(
          new RegExp(`Fork of${original} from call ${payCallId}`),
        );
        expect(forks).toEqual([{ fromCallId: payCallId, repeatEffects: true }]);
        await page.locator(".timeline-end", { hasText: "Paid after the lookup." }).waitFor();
        expect(paid(ref)).toBe(2);
        expect(await fitsTheScreen(page)).toBe(true);
        expect(problems).toEqual([]);
      });
    });
  }

  it("offers nothing to a token that may not create runs", async () => {
    const original = await finished(script({ status: 500, times: 3 }, { text: "never read" }));
    const { page, problems } = await signedIn(1280, consoleTokens.operator.token);
    await page.goto(`${stack.consoleUrl}#/runs/${original}`);
    await runHeading(page, original).waitFor();
    await page.locator(".timeline-end").waitFor();
    await expect(page.locator(".run-actions, .fork-from-call").count()).resolves.toBe(0);
    expect(problems).toEqual([]);
  });
});
