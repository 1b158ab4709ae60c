import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineGateway } from "../../src/gateway/index.js";
import { webhookPayloadSchema } from "../../src/notifications/webhook-payload.js";
import { waitUntil } from "../helpers/wait-until.js";
import { WebhookReceiver } from "../integration/notifications/webhook-receiver.js";
import {
  approvalNow,
  approvalPageTools,
  callApi,
  openAt,
  pageWidths,
  parkCall,
} from "./approval-page-stack.js";
import { type IConsoleStack, startConsoleStack } from "./console-stack.js";
import { aliceLinkTarget, linkRuntime } from "./link-target.js";

/*
 * An approval link's page when the approval ends another way than by a person: a run cancelled while
 * the page is open is said as a cancellation when Confirm is pressed (409 naming "cancelled"), and on
 * opening the link afterwards; never as "another reviewer decided first".
 */

describe.each(pageWidths)("an approval link whose run was cancelled, at %i px", (width) => {
  let receiver: WebhookReceiver;
  let stack: IConsoleStack;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    const gateway = defineGateway({
      tools: approvalPageTools,
      // The page is opened at the API's own address below: the link's token is what matters.
      notifications: { targets: [aliceLinkTarget(receiver.url, "http://127.0.0.1:9/console/")] },
    });
    stack = await startConsoleStack(`console-link-ending-${width}`, gateway, { runtime: linkRuntime() });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  /** A parked refund and its approve link, at this stack's console. */
  async function parkedWithLink(chargeId: string) {
    const parked = await parkCall(stack, "refund", { chargeId, amount: 180, currency: "EUR" });
    const payload = await waitUntil(() => {
      const found = receiver.delivered().find((delivery) => delivery.payload.data.runId === parked.runId);
      return found ? webhookPayloadSchema.parse(found.payload) : undefined;
    });
    const token = new URL(payload.data.links!.approve).hash.replace("#/link/", "");
    return { ...parked, link: `${stack.consoleUrl}#/link/${token}` };
  }

  /** Cancels the run through the API, and waits for its approval to read cancelled. */
  async function cancelRun(runId: string, approvalId: string) {
    expect((await callApi(stack, "service", "POST", `v1/runs/${runId}/cancel`)).status).toBe(202);
    await expect.poll(async () => (await approvalNow(stack, approvalId)).status).toBe("cancelled");
  }

  it("Confirm pressed after the run was cancelled says the run was cancelled", async () => {
    const { runId, approvalId, link } = await parkedWithLink("ch_link_1");
    const { page, problems } = await openAt(stack, width);
    await page.goto(link);
    await page.getByRole("button", { name: "Confirm: approve" }).waitFor();
    await cancelRun(runId, approvalId);
    await page.getByRole("button", { name: "Confirm: approve" }).click();
    const said = page.locator("[data-code=TG_APPROVAL_DECIDED]");
    await said.waitFor();
    await expect(said.textContent()).resolves.toMatch(/^The run was cancelled/);
    expect(problems).toEqual([]);
  });

  it("a link opened after the run was cancelled says so", async () => {
    const { runId, approvalId, link } = await parkedWithLink("ch_link_2");
    await cancelRun(runId, approvalId);
    const { page, problems } = await openAt(stack, width);
    await page.goto(link);
    const said = page.locator(".link-decided");
    await said.waitFor();
    await expect(said.textContent()).resolves.toMatch(/^The run was cancelled/);
    expect(await page.getByRole("button", { name: /Confirm/ }).count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
