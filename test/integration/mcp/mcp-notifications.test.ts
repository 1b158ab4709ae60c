import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineGateway } from "../../../src/gateway/index.js";
import {
  type IHttpMcpServer,
  shopServerSettings,
  startHttpMcpServer,
} from "../../fixtures/mcp-test-server.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { WebhookReceiver } from "../notifications/webhook-receiver.js";

// Notification targets and escalations filter by tool and tag as the policy and approver rules do, MCP
// tools included: a target may name `<server>__<tool>`, the server's `mcp:<server>` tag, the server's
// settings' tags or the tool's own. The worker holds the MCP connection; the dispatcher reads the tags
// from the run's pinned tool list. Real Redis, a real worker, the test MCP server over streamable HTTP.

const secret = `whsec_${randomBytes(32).toString("base64")}`;

describe("notifications name MCP tools and their tags", () => {
  let shop: IHttpMcpServer;
  let byTool: WebhookReceiver;
  let byServerTag: WebhookReceiver;
  let oncall: WebhookReceiver;
  let unrelated: WebhookReceiver;
  let harness: IHarness;

  beforeAll(async () => {
    shop = await startHttpMcpServer();
    [byTool, byServerTag, oncall, unrelated] = await Promise.all([
      WebhookReceiver.start(),
      WebhookReceiver.start(),
      WebhookReceiver.start(),
      WebhookReceiver.start(),
    ]);
    const gateway = defineGateway({
      tools: [],
      mcpServers: {
        shop: shopServerSettings(shop.url),
      },
      notifications: {
        targets: [
          { name: "by-tool", url: byTool.url, secret, tools: ["shop__refund"] },
          { name: "by-server-tag", url: byServerTag.url, secret, tags: ["mcp:shop"] },
          { name: "oncall", url: oncall.url, secret, events: ["approval-escalated"] },
          { name: "unrelated", url: unrelated.url, secret, tools: ["shop__echo"] },
        ],
        escalations: [{ tags: ["money"], afterMs: 200, target: "oncall" }],
        delivery: { attempts: 20, backoffMs: 20, timeoutMs: 30_000, claimIdleMs: 1_000 },
      },
    });
    harness = await createHarness(gateway, "mcp-notify");
    await harness.startWorker();
  });
  afterAll(async () => {
    await harness?.close();
    await Promise.all([byTool, byServerTag, oncall, unrelated].map((receiver) => receiver?.close()));
    await shop?.close();
  });

  function deliveredTo(receiver: WebhookReceiver, approvalId: string, type: string) {
    return waitUntil(() =>
      receiver
        .delivered()
        .find(
          (delivery) => delivery.payload.data.approvalId === approvalId && delivery.payload.type === type,
        ),
    );
  }

  it("a parked MCP call reaches the targets naming its tool or its server's tag, and escalates by the tool's own tag", async () => {
    const { runId } = await harness.client.run({
      input: script(
        { calls: [{ name: "shop__refund", input: { chargeId: "ch_7", amount: 4 } }] },
        { text: "done" },
      ),
      userContext: { userId: "u-mcp-notify" },
    });
    const [approval] = await waitUntil(async () => {
      const pending = await harness.client.approvals.list({ runId });
      return pending.length > 0 ? pending : undefined;
    });
    const approvalId = approval!.approvalId;
    const requested = await deliveredTo(byTool, approvalId, "approval-requested");
    expect(requested.payload.data).toMatchObject({ runId, toolName: "shop__refund" });
    await deliveredTo(byServerTag, approvalId, "approval-requested");
    const escalated = await deliveredTo(oncall, approvalId, "approval-escalated");
    expect(escalated.payload.data).toMatchObject({ approvalId, toolName: "shop__refund" });

    await harness.client.approvals.approve(approvalId, { approver: "alice" });
    const response = await harness.client.wait(runId);
    expect(response.toolResults[0]).toMatchObject({ outcome: "ok", text: "refunded 4 on ch_7" });
    await deliveredTo(byTool, approvalId, "approval-decided");
    // The target filtered on another MCP tool heard nothing of this approval.
    expect(
      unrelated.delivered().filter((delivery) => delivery.payload.data.approvalId === approvalId),
    ).toEqual([]);
  });

  it("a notification naming a tool or tag that no tool or mounted server has is still refused", () => {
    expect(() =>
      defineGateway({
        tools: [],
        mcpServers: { shop: { url: shop.url } },
        notifications: {
          targets: [
            { name: "a", url: byTool.url, secret, tools: ["warehouse__count"] },
            { name: "b", url: byTool.url, secret, tags: ["mcp:warehouse"] },
          ],
        },
      }),
    ).toThrow(/notifications\.targets\.0\.tools\.0.*notifications\.targets\.1\.tags\.0/s);
  });
});
