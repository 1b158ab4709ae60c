import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, EToolCallVerdict } from "../../../src/contracts/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { verifyApprovalLink } from "../../../src/links/index.js";
import { webhookPayloadSchema } from "../../../src/notifications/webhook-payload.js";
import { needsApprovalTool } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { WebhookReceiver } from "./webhook-receiver.js";

const linkSecret = randomBytes(32).toString("base64");
const plainSecret = `whsec_${randomBytes(32).toString("base64")}`;
const aliceSecret = `whsec_${randomBytes(32).toString("base64")}`;
const ttlMs = 10 * 60_000;

/** Its approvals expire before a link's lifetime is over. */
const shortApprovalTool = defineTool({
  name: "short_approval",
  description: "Waits two minutes for a human.",
  inputSchema: z.object({ note: z.string() }),
  policy: EToolCallVerdict.NEEDS_APPROVAL,
  approvalTtlMs: 120_000,
  execute: async () => ({ done: true }),
});

describe("webhook payloads with signed approval links", () => {
  let plain: WebhookReceiver;
  let alice: WebhookReceiver;
  let harness: IHarness;

  beforeAll(async () => {
    plain = await WebhookReceiver.start();
    alice = await WebhookReceiver.start();
    const gateway = defineGateway({
      tools: [needsApprovalTool, shortApprovalTool],
      notifications: {
        targets: [
          { name: "room", url: plain.url, secret: plainSecret },
          {
            name: "alice-dm",
            url: alice.url,
            secret: aliceSecret,
            links: {
              approver: { subject: "alice", roles: ["finance"] },
              consoleUrl: "https://tollgate.example.com/console/",
              ttlMs,
            },
          },
        ],
        delivery: { attempts: 5, backoffMs: 20, timeoutMs: 10_000, claimIdleMs: 1_000 },
      },
    });
    harness = await createHarness(gateway, "webhook-links", { linkSecret });
    await harness.startWorker();
  });
  afterAll(async () => {
    await harness?.close();
    await plain?.close();
    await alice?.close();
  });

  async function parked(tool: "needs_approval" | "short_approval", input: object) {
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: tool, input }] }, { text: "done" }),
      userContext: { userId: "u-links" },
    });
    const approval = await waitUntil(async () => (await harness.client.approvals.list({ runId }))[0]);
    return { runId, approval };
  }

  const deliveries = (receiver: WebhookReceiver, approvalId: string, count: number) =>
    waitUntil(() => {
      const found = receiver
        .delivered()
        .filter((delivery) => delivery.payload.data.approvalId === approvalId);
      return found.length >= count
        ? found.map((delivery) => webhookPayloadSchema.parse(delivery.payload))
        : undefined;
    });

  it("carries links for the target that asks, bound to its approver, and none for the others", async () => {
    const mintedAfter = Date.now();
    const { runId, approval } = await parked("needs_approval", { amount: 40 });
    const [requested] = await deliveries(alice, approval.approvalId, 1);
    const links = requested!.data.links!;
    expect(requested!.type).toBe("approval-requested");
    expect(links.approver).toBe("alice");
    expect(links.expiresAt).toBeLessThanOrEqual(Math.min(approval.expiresAt, Date.now() + ttlMs));
    expect(links.expiresAt).toBeGreaterThanOrEqual(mintedAfter + ttlMs - 1);
    for (const [action, link] of [
      ["approve", links.approve],
      ["reject", links.reject],
    ] as const) {
      const [base, token] = link.split("#/link/");
      expect(base).toBe("https://tollgate.example.com/console/");
      expect(verifyApprovalLink(token!, linkSecret, Date.now())).toMatchObject({
        approvalId: approval.approvalId,
        target: "alice-dm",
        approver: "alice",
        action,
        expiresAt: links.expiresAt,
      });
    }
    // The body with links is signed with the target's own secret, like every delivery.
    const raw = alice.received.find((entry) => entry.body.includes(approval.approvalId))!;
    expect(() =>
      new Webhook(aliceSecret).verify(raw.body, raw.headers as Record<string, string>),
    ).not.toThrow();

    const [roomRequested] = await deliveries(plain, approval.approvalId, 1);
    expect(roomRequested!.data.links).toBeUndefined();
    expect(JSON.stringify(roomRequested)).not.toContain("#/link/");

    // Once decided, nothing is left to decide: no links in the decided event.
    await harness.client.approvals.approve(approval.approvalId, { approver: "bob" });
    await harness.client.wait(runId);
    const [, decided] = await deliveries(alice, approval.approvalId, 2);
    expect(decided!.type).toBe("approval-decided");
    expect(decided!.data.links).toBeUndefined();
  });

  it("each attempt mints its own links: a retry after the decision carries none", async () => {
    alice.plan.push("hold");
    const { runId, approval } = await parked("needs_approval", { amount: 60 });
    await waitUntil(() => alice.heldCount() > 0);
    await harness.client.approvals.reject(approval.approvalId, { approver: "bob", reason: "no" });
    // The first attempt (links minted while pending) fails; the retry reads the approval again.
    alice.release(503);
    const [requested] = await deliveries(alice, approval.approvalId, 1);
    expect(requested!.type).toBe("approval-requested");
    expect(requested!.data.links).toBeUndefined();
    const attempts = alice.received.filter((entry) => entry.body.includes(approval.approvalId));
    expect(JSON.parse(attempts[0]!.body).data.links.approver).toBe("alice");
    // One message, whatever its attempts: the receiver drops duplicates by webhook-id.
    expect(attempts[0]!.headers["webhook-id"]).toBe(attempts[1]!.headers["webhook-id"]);
    await harness.client.wait(runId);
  });

  it("never outlives the approval: links of a short approval expire with it", async () => {
    const { runId, approval } = await parked("short_approval", { note: "soon" });
    const [requested] = await deliveries(alice, approval.approvalId, 1);
    expect(requested!.data.links?.expiresAt).toBe(approval.expiresAt);
    await harness.client.cancel(runId);
  });
});
