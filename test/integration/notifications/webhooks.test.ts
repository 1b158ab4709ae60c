import { randomBytes } from "node:crypto";
import { Registry } from "prom-client";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineGateway } from "../../../src/gateway/index.js";
import { metricsText } from "../../../src/observability/index.js";
import { needsApprovalTool, quickExpiryTool } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { WebhookReceiver } from "./webhook-receiver.js";

const secret = `whsec_${randomBytes(32).toString("base64")}`;
const oncallSecret = `whsec_${randomBytes(32).toString("base64")}`;

describe("webhook notifications", () => {
  let receiver: WebhookReceiver;
  let oncall: WebhookReceiver;
  let harness: IHarness;
  const registry = new Registry();

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    oncall = await WebhookReceiver.start();
    const gateway = defineGateway({
      tools: [needsApprovalTool, quickExpiryTool],
      notifications: {
        targets: [
          { name: "ops", url: receiver.url, secret, tools: ["needs_approval", "quick_expiry"] },
          { name: "oncall", url: oncall.url, secret: oncallSecret, events: ["approval-escalated"] },
        ],
        escalations: [{ tools: ["needs_approval"], afterMs: 400, target: "oncall" }],
        expiringSoonMs: 200,
        delivery: { attempts: 20, backoffMs: 20, timeoutMs: 30_000, claimIdleMs: 1_000 },
      },
    });
    harness = await createHarness(gateway, "webhooks");
    await harness.startWorker({ registry });
  });
  afterAll(async () => {
    await harness.close();
    await receiver.close();
    await oncall.close();
  });

  async function parkedRun(tool: "needs_approval" | "quick_expiry", input: object) {
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: tool, input }] }, { text: "done" }),
      userContext: { userId: "u-hooks" },
    });
    const [approval] = await waitUntil(async () => {
      const pending = await harness.client.approvals.list({ runId });
      return pending.length > 0 ? pending : undefined;
    });
    return { runId, approvalId: approval!.approvalId };
  }

  function deliveriesOf(target: WebhookReceiver, approvalId: string) {
    return target.delivered().filter((delivery) => delivery.payload.data.approvalId === approvalId);
  }

  /** The approval's deliveries to `target` once there are at least `count`. */
  function deliveredAtLeast(target: WebhookReceiver, approvalId: string, count: number) {
    return waitUntil(() => {
      const found = deliveriesOf(target, approvalId);
      return found.length >= count ? found : undefined;
    });
  }

  it("signed deliveries, requested before decided, and the run never waits on them", async () => {
    // The receiver holds every request: the run must still be approved and finish.
    receiver.plan.push("hold", "hold", "hold", "hold");
    const { runId, approvalId } = await parkedRun("needs_approval", { amount: 10 });
    await harness.client.approvals.approve(approvalId, { approver: "alice" });
    const response = await harness.client.wait(runId);
    expect(response.status).toBe("completed");
    expect(deliveriesOf(receiver, approvalId)).toEqual([]);
    await waitUntil(() => receiver.heldCount() > 0);
    receiver.plan.length = 0;
    receiver.release();
    const delivered = await deliveredAtLeast(receiver, approvalId, 2);
    expect(delivered.map((delivery) => delivery.payload.type)).toEqual([
      "approval-requested",
      "approval-decided",
    ]);
    const verifier = new Webhook(secret);
    for (const raw of receiver.received.filter((entry) => entry.body.includes(approvalId))) {
      expect(verifier.verify(raw.body, raw.headers as Record<string, string>)).toEqual(JSON.parse(raw.body));
      expect(() =>
        new Webhook(oncallSecret).verify(raw.body, raw.headers as Record<string, string>),
      ).toThrow();
    }
    const decided = delivered[1]!.payload;
    expect(decided.data).toMatchObject({
      runId,
      toolName: "needs_approval",
      status: "approved",
      approver: "alice",
    });
    expect(decided.data.approval).toMatchObject({ input: { amount: 10 }, userId: "u-hooks" });
  });

  it("retries after 500s and while the receiver is down, in order, losing nothing", async () => {
    // The requested delivery fails several ways before it gets through; the decided one waits for it.
    receiver.plan.push(500, 500, "drop", "drop", 503);
    const { runId, approvalId } = await parkedRun("needs_approval", { amount: 20 });
    await harness.client.approvals.reject(approvalId, { approver: "bob", reason: "no" });
    await harness.client.wait(runId);
    const delivered = await deliveredAtLeast(receiver, approvalId, 2);
    expect(delivered.map((delivery) => delivery.payload.type)).toEqual([
      "approval-requested",
      "approval-decided",
    ]);
    const attempts = receiver.received.filter((entry) => entry.body.includes(approvalId));
    expect(attempts.length).toBeGreaterThanOrEqual(7);
    // One message id per event, whatever the attempt: the receiver can drop a duplicate.
    expect(new Set(attempts.map((entry) => entry.headers["webhook-id"])).size).toBe(2);
    const text = (await metricsText(registry)).body;
    expect(text).toMatch(/tollgate_webhook_deliveries_total\{[^}]*outcome="failed"[^}]*\} [1-9]/);
    expect(text).toMatch(/tollgate_webhook_deliveries_total\{[^}]*outcome="delivered"[^}]*\} [1-9]/);
  });

  it("escalates a pending approval to its own target; not one decided before", async () => {
    const pending = await parkedRun("needs_approval", { amount: 30 });
    const decidedEarly = await parkedRun("needs_approval", { amount: 40 });
    await harness.client.approvals.approve(decidedEarly.approvalId, { approver: "carol" });
    const [escalated] = await deliveredAtLeast(oncall, pending.approvalId, 1);
    expect(escalated!.payload).toMatchObject({
      type: "approval-escalated",
      data: { status: "pending", escalation: { target: "oncall", afterMs: 400 } },
    });
    const job = await clientInternals(harness.client).runtime.queues.notifications.getJob(
      `escalate-0-${decidedEarly.approvalId}`,
    );
    await waitUntil(async () => (await job?.getState()) === "completed");
    expect(deliveriesOf(oncall, decidedEarly.approvalId)).toEqual([]);
    // The escalation is on the approval event stream too, for the console's live inbox.
    const events = await clientInternals(harness.client).runtime.approvalEvents.readAfter("0");
    expect(
      events.filter((event) => event.type === "approval-escalated").map((event) => event.approvalId),
    ).toEqual([pending.approvalId]);
    await harness.client.cancel(pending.runId);
    await harness.client.wait(pending.runId);
  });

  it("announces an approval that expires soon, then its expiry", async () => {
    const { runId, approvalId } = await parkedRun("quick_expiry", { note: "x" });
    await harness.client.wait(runId);
    const delivered = await deliveredAtLeast(receiver, approvalId, 3);
    expect(delivered.map((delivery) => delivery.payload.type)).toEqual([
      "approval-requested",
      "approval-expiring",
      "approval-expired",
    ]);
  });
});
