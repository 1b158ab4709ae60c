import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildApi, type IApiToken } from "../../../src/api/index.js";
import { defineTool, EToolCallVerdict } from "../../../src/contracts/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { type TWebhookPayload, webhookPayloadSchema } from "../../../src/notifications/webhook-payload.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { silentLogger } from "../api/api-fixture.js";
import { WebhookReceiver } from "./webhook-receiver.js";

const linkSecret = randomBytes(32).toString("base64");
const wrongCustomerFill =
  "The reviewer says this email goes to the wrong customer: look the customer up again.";

const gateway = (url: string) =>
  defineGateway({
    tools: [
      defineTool({
        name: "send_email",
        description: "Sends an email to a customer.",
        inputSchema: z.object({ to: z.string() }),
        policy: EToolCallVerdict.NEEDS_APPROVAL,
        rejectOptions: [
          { name: "wrong_customer", title: "Wrong customer", promptFill: wrongCustomerFill },
          { name: "tone", title: "Rewrite the tone", promptFill: "Rewrite the email in a friendlier tone." },
        ],
        execute: async ({ input }) => ({ sentTo: input.to }),
      }),
      defineTool({
        name: "wire_transfer",
        description: "Sends money; two approvers.",
        inputSchema: z.object({ amount: z.number() }),
        policy: EToolCallVerdict.NEEDS_APPROVAL,
        execute: async ({ input }) => ({ sent: input.amount }),
      }),
    ],
    approvals: { rules: [{ name: "four-eyes", tools: ["wire_transfer"], quorum: 2 }] },
    notifications: {
      targets: [
        {
          name: "alice-dm",
          url,
          secret: `whsec_${randomBytes(32).toString("base64")}`,
          links: { approver: { subject: "alice" }, consoleUrl: "https://tollgate.example.com/console/" },
        },
      ],
      delivery: { attempts: 5, backoffMs: 20, timeoutMs: 10_000, claimIdleMs: 1_000 },
    },
  });

const writer: IApiToken = {
  token: "writer-token-0123456789abcdef",
  subject: "svc-writer",
  roles: ["runs:write", "runs:read"],
};

/**
 * Issue 22 through a webhook: a message carries one signed link per named reject option, bound to the
 * input it shows; redeeming an option's link over HTTP rejects with that option (the model reads its
 * promptFill) and the decided webhook names it; a link whose input an approver changed since is refused.
 */
describe("webhook links per reject option, bound to the input shown", () => {
  let receiver: WebhookReceiver;
  let harness: IHarness;
  let app: FastifyInstance;
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    harness = await createHarness(gateway(receiver.url), "webhook-link-options", { linkSecret });
    await harness.startWorker();
    app = await buildApi({ client: harness.client, tokens: [writer], logger: silentLogger() });
  });
  afterAll(async () => {
    await app?.close();
    await harness?.close();
    await receiver?.close();
  });

  async function parked(tool: string, input: object) {
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: tool, input }] }, { text: "done" }),
      userContext: { userId: "u-links" },
    });
    const approval = await waitUntil(async () => (await harness.client.approvals.list({ runId }))[0]);
    return { runId, approvalId: approval.approvalId };
  }

  const delivered = (approvalId: string, type: TWebhookPayload["type"]) =>
    waitUntil(() =>
      receiver
        .delivered()
        .map((delivery) => webhookPayloadSchema.parse(delivery.payload))
        .find((payload) => payload.data.approvalId === approvalId && payload.type === type),
    );
  const tokenOf = (url: string) => url.split("#/link/")[1]!;
  const post = (url: string, payload: Record<string, unknown>) =>
    app.inject({ method: "POST", url, payload });

  it("one link per option; redeeming one rejects with it, the model reads it, the decided webhook names it", async () => {
    const { runId, approvalId } = await parked("send_email", { to: "ada@example.com" });
    const requested = await delivered(approvalId, "approval-requested");
    expect(requested.data.approval?.rejectOptions).toEqual([
      { name: "wrong_customer", title: "Wrong customer" },
      { name: "tone", title: "Rewrite the tone" },
    ]);
    const links = requested.data.links!;
    expect(links.rejectOptions?.map((option) => [option.name, option.title])).toEqual([
      ["wrong_customer", "Wrong customer"],
      ["tone", "Rewrite the tone"],
    ]);
    const wrongCustomer = tokenOf(links.rejectOptions![0]!.url);

    const inspected = await post("/v1/approval-links/inspect", { token: wrongCustomer });
    expect(inspected.json()).toMatchObject({
      action: "reject",
      rejectOption: { name: "wrong_customer", title: "Wrong customer" },
      inputHash: requested.data.approval?.inputHash,
      approval: { inputHash: requested.data.approval?.inputHash, status: "pending" },
    });

    const redeemed = await post("/v1/approval-links/redeem", { token: wrongCustomer, comment: "Ada moved." });
    expect(redeemed.statusCode).toBe(200);
    expect(redeemed.json().decision).toMatchObject({
      decision: "rejected",
      approver: "alice",
      comment: "Ada moved.",
      rejectOption: { name: "wrong_customer" },
    });
    // The other links of the message shared its one use.
    expect(
      (await post("/v1/approval-links/redeem", { token: tokenOf(links.approve) })).json().error.code,
    ).toBe("TG_LINK_USED");
    const response = await harness.client.wait(runId, { timeoutMs: 20_000 });
    expect(response.toolResults[0]?.text).toContain(`${wrongCustomerFill} Reviewer's reason: Ada moved.`);
    const decided = await delivered(approvalId, "approval-decided");
    expect(decided.data).toMatchObject({ status: "rejected", rejectOption: "wrong_customer" });
    expect(decided.data.approval?.decision).toMatchObject({ rejectOption: "wrong_customer" });
  });

  it("a link whose approval now acts on another input (an edit by another approver) is refused as stale", async () => {
    const { runId, approvalId } = await parked("wire_transfer", { amount: 900 });
    const requested = await delivered(approvalId, "approval-requested");
    const approveLink = tokenOf(requested.data.links!.approve);
    // Bob edits the amount with his vote; the message Alice holds still shows 900.
    await harness.client.approvals.approve(approvalId, { approver: "bob", input: { amount: 90 } });

    const inspected = (await post("/v1/approval-links/inspect", { token: approveLink })).json();
    expect(inspected.inputHash).toBe(requested.data.approval?.inputHash);
    expect(inspected.approval.inputHash).not.toBe(inspected.inputHash);
    const redeemed = await post("/v1/approval-links/redeem", { token: approveLink });
    expect(redeemed.statusCode).toBe(409);
    expect(redeemed.json().error.code).toBe("TG_APPROVAL_STALE");
    const approval = await harness.client.approvals.get(approvalId);
    expect(approval).toMatchObject({
      status: "pending",
      inputs: { proposed: { amount: 900 }, approved: { amount: 90 } },
    });
    expect((await harness.client.getRun(runId)).pendingApprovals).toHaveLength(1);
  });
});
