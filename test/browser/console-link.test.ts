import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineGateway } from "../../src/gateway/index.js";
import { webhookPayloadSchema } from "../../src/notifications/webhook-payload.js";
import { script } from "../helpers/script.js";
import { waitUntil } from "../helpers/wait-until.js";
import { WebhookReceiver } from "../integration/notifications/webhook-receiver.js";
import { consoleTools, type IConsoleStack, startConsoleStack } from "./console-stack.js";
import { aliceLinkTarget, linkRuntime } from "./link-target.js";

/** A port free now, for an API whose address the gateway's links must name before it starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("an approval link from a webhook, opened in the browser", () => {
  let receiver: WebhookReceiver;
  let stack: IConsoleStack;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    const port = await freePort();
    const gateway = defineGateway({
      tools: consoleTools,
      notifications: {
        targets: [aliceLinkTarget(receiver.url, `http://127.0.0.1:${port}/console/`)],
      },
    });
    stack = await startConsoleStack("console-link", gateway, { port, runtime: linkRuntime() });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  async function parkedRefund(amount: number) {
    const { runId } = await stack.harness.client.run({
      input: script({ calls: [{ name: "refund", input: { chargeId: "ch_77", amount } }] }),
      userContext: { userId: "u-ada" },
    });
    const payload = await waitUntil(() => {
      const found = receiver.delivered().find((delivery) => delivery.payload.data.runId === runId);
      return found ? webhookPayloadSchema.parse(found.payload) : undefined;
    });
    return { runId, approvalId: payload.data.approvalId, links: payload.data.links! };
  }

  it("shows what will happen, decides only on Confirm, and the run completes", async () => {
    const { runId, approvalId, links } = await parkedRefund(250);
    expect(links.approve.startsWith(`${stack.consoleUrl}#/link/`)).toBe(true);

    // A bare GET of the link (a chat unfurler, a mail scanner): the page, and nothing decided.
    const bare = await fetch(links.approve);
    expect(bare.status).toBe(200);
    expect(await bare.text()).toContain("Tollgate console");
    expect((await stack.harness.client.approvals.get(approvalId)).status).toBe("pending");

    // No sign-in: the link is the credential.
    const session = await stack.newSession();
    const { page } = session;
    await page.goto(links.approve);
    await page.getByRole("heading", { name: "Approve refund?" }).waitFor();
    await expect(page.locator(".link-actor").textContent()).resolves.toMatch(/acts as alice/);
    // Not signed in: no sections to go to (the nav's `hidden` must win over its display style).
    expect(await page.locator("#nav").isVisible()).toBe(false);
    await expect(page.locator(".json.input").textContent()).resolves.toContain('"amount": 250');
    await expect(page.locator(".fact-reason").textContent()).resolves.toBe("Refund of 250 EUR is over 100");
    // The page is open and has read the approval: still nothing decided.
    expect((await stack.harness.client.approvals.get(approvalId)).status).toBe("pending");

    await page.getByLabel("Comment (optional, kept with the decision)").fill("ok from chat");
    await page.getByRole("button", { name: "Confirm: approve" }).click();
    await page.locator(".outcome .done", { hasText: "You approved this call" }).waitFor();
    await page.locator(".status", { hasText: /^approved by alice/ }).waitFor();
    const response = await stack.harness.client.wait(runId, { timeoutMs: 20_000 });
    expect(response.toolResults[0]).toMatchObject({ toolName: "refund", output: { refunded: 250 } });
    expect((await stack.harness.client.approvals.get(approvalId)).decision).toMatchObject({
      approver: "alice",
      comment: "ok from chat",
    });

    // Opened again (a second click in the chat): used, with who decided, and no button.
    await page.reload();
    await page.locator(".link-used", { hasText: "already used" }).waitFor();
    expect(await page.getByRole("button", { name: /Confirm/ }).count()).toBe(0);

    expect(session.problems).toEqual([]);
    const origin = new URL(stack.consoleUrl).origin;
    expect(session.requests.filter((url) => !url.startsWith(origin))).toEqual([]);
  });

  it("an approval another reviewer decided first shows who did, not an error", async () => {
    const { runId, approvalId, links } = await parkedRefund(180);
    await stack.harness.client.approvals.reject(approvalId, { approver: "bob", reason: "duplicate" });
    const session = await stack.newSession();
    await session.page.goto(links.approve);
    await session.page
      .locator(".link-decided", { hasText: "Nothing left to decide: rejected by bob" })
      .waitFor();
    expect(await session.page.getByRole("button", { name: /Confirm/ }).count()).toBe(0);
    await stack.harness.client.wait(runId, { timeoutMs: 20_000 });
    expect(session.problems).toEqual([]);
  });
});
