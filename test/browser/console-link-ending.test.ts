import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineGateway } from "../../src/gateway/index.js";
import { webhookPayloadSchema } from "../../src/notifications/webhook-payload.js";
import { waitUntil } from "../helpers/wait-until.js";
import { WebhookReceiver } from "../integration/notifications/webhook-receiver.js";
import { approvalPageTools, callApi, openAt, pageWidths, parkCall } from "./approval-page-stack.js";
import { type IConsoleStack, startConsoleStack } from "./console-stack.js";

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
      notifications: {
        targets: [
          {
            name: "alice-dm",
            url: receiver.url,
            secret: `whsec_${randomBytes(32).toString("base64")}`,
            events: ["approval-requested"],
            // The page is opened at the API's own address below: the link's token is what matters.
            links: { approver: { subject: "alice" }, consoleUrl: "http://127.0.0.1:9/console/" },
          },
        ],
      },
    });
    stack = await startConsoleStack(`console-link-ending-${width}`, gateway, {
      runtime: { linkSecret: randomBytes(32).toString("base64") },
    });
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

  const cancel = async (runId: string) =>
    expect((await callApi(stack, "service", "POST", `v1/runs/${runId}/cancel`)).status).toBe(202);

  it("Confirm pressed after the run was cancelled says the run was cancelled", async () => {
    const { runId, approvalId, link } = await parkedWithLink("ch_link_1");
    const { page, problems } = await openAt(stack, width);
    await page.goto(link);
    await page.getByRole("button", { name: "Confirm: approve" }).waitFor();
    await cancel(runId);
    await expect
      .poll(
        async () =>
          (await callApi<{ status: string }>(stack, "alice", "GET", `v1/approvals/${approvalId}`)).body
            .status,
      )
      .toBe("cancelled");
    await page.getByRole("button", { name: "Confirm: approve" }).click();
    const said = page.locator("[data-code=TG_APPROVAL_DECIDED]");
    await said.waitFor();
    await expect(said.textContent()).resolves.toMatch(/^The run was cancelled/);
    expect(problems).toEqual([]);
  });

  it("a link opened after the run was cancelled says so", async () => {
    const { runId, approvalId, link } = await parkedWithLink("ch_link_2");
    await cancel(runId);
    await expect
      .poll(
        async () =>
          (await callApi<{ status: string }>(stack, "alice", "GET", `v1/approvals/${approvalId}`)).body
            .status,
      )
      .toBe("cancelled");
    const { page, problems } = await openAt(stack, width);
    await page.goto(link);
    const said = page.locator(".link-decided");
    await said.waitFor();
    await expect(said.textContent()).resolves.toMatch(/^The run was cancelled/);
    expect(await page.getByRole("button", { name: /Confirm/ }).count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
