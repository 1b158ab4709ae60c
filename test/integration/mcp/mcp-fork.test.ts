import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EToolCallVerdict } from "../../../src/contracts/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { type IHttpMcpServer, startHttpMcpServer } from "../../fixtures/mcp-test-server.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

// A fork from a call of an MCP tool: the fork plans the call with the MCP tools its original pinned
// (the API process holds no MCP connection, so the gateway's own registry does not know them).

const user = { userId: "u-mcp-fork" };

describe("forks of MCP tool calls", () => {
  let shop: IHttpMcpServer;
  let harness: IHarness;
  let original: { runId: string; echoCallId: string; refundCallId: string };

  beforeAll(async () => {
    shop = await startHttpMcpServer();
    const gateway = defineGateway({
      tools: [],
      mcpServers: {
        shop: { url: shop.url, tools: { refund: { policy: EToolCallVerdict.NEEDS_APPROVAL } } },
      },
    });
    harness = await createHarness(gateway, "mcp-fork");
    await harness.startWorker();
    // The worker publishes the server's tools once it listed them; a run names them after that.
    await waitUntil(async () => (await harness.client.listTools()).tools.length > 0);
    const { runId } = await harness.client.run({
      input: script(
        { calls: [{ name: "shop__echo", input: { text: "first" } }] },
        { calls: [{ name: "shop__refund", input: { chargeId: "ch_1", amount: 5 } }] },
        { text: "done" },
      ),
      userContext: user,
    });
    const approval = await waitUntil(async () => (await harness.client.approvals.list({ runId }))[0]);
    await harness.client.approvals.approve(approval.approvalId, { approver: "carol" });
    const response = await harness.client.wait(runId);
    expect(response.status).toBe("completed");
    const [echo, refund] = response.toolResults;
    original = { runId, echoCallId: echo!.callId, refundCallId: refund!.callId };
  }, 60_000);
  afterAll(async () => {
    await harness.close();
    await shop.close();
  });

  it("without an edit, the call runs again on its server", async () => {
    const before = shop.ledger.calls.length;
    const fork = await harness.client.fork(original.runId, {
      fromCallId: original.echoCallId,
      repeatEffects: true,
    });
    const approval = await waitUntil(
      async () => (await harness.client.approvals.list({ runId: fork.runId }))[0],
    );
    await harness.client.approvals.approve(approval.approvalId, { approver: "carol" });
    const response = await harness.client.wait(fork.runId);
    expect(response.status).toBe("completed");
    expect(response.toolResults[0]).toMatchObject({ toolName: "shop__echo", outcome: "ok", text: "first" });
    expect(shop.ledger.calls.slice(before).map((call) => call.tool)).toEqual(["echo", "refund"]);
  });

  it("with an edit, the edited input is checked against the pinned schema and runs", async () => {
    const fork = await harness.client.fork(original.runId, {
      fromCallId: original.refundCallId,
      input: { chargeId: "ch_1", amount: 3 },
      repeatEffects: true,
    });
    const approval = await waitUntil(
      async () => (await harness.client.approvals.list({ runId: fork.runId }))[0],
    );
    expect(approval).toMatchObject({ toolName: "shop__refund", input: { chargeId: "ch_1", amount: 3 } });
    await harness.client.approvals.approve(approval.approvalId, { approver: "carol" });
    const response = await harness.client.wait(fork.runId);
    expect(response.toolResults[1]).toMatchObject({
      toolName: "shop__refund",
      outcome: "ok",
      text: "refunded 3 on ch_1",
    });
    const refused = await harness.client
      .fork(original.runId, {
        fromCallId: original.refundCallId,
        input: { chargeId: "ch_1", amount: -3 },
        repeatEffects: true,
      })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "TG_FORK_INVALID_INPUT" });
  });
});
