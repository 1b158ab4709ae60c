import { fileURLToPath } from "node:url";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EToolCallVerdict } from "../../../src/contracts/index.js";
import { TollgateError } from "../../../src/errors/index.js";
import { defineGateway, type IGateway } from "../../../src/gateway/index.js";
import { type IHttpMcpServer, startHttpMcpServer } from "../../fixtures/mcp-test-server.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

// MCP tools end to end: a test MCP server (the SDK's server classes) over streamable HTTP and over stdio,
// a real worker with real Redis and BullMQ, the scripted model through the real openai SDK.

const stdioServer = fileURLToPath(new URL("../../fixtures/mcp-stdio-server.ts", import.meta.url));
const user = { userId: "u-mcp" };

function mcpGateway(url: string): IGateway {
  return defineGateway({
    tools: [],
    maxOutputChars: 200,
    mcpServers: {
      shop: {
        url,
        headers: { "x-api-key": "test" },
        tools: {
          slow: { timeoutMs: 300 },
          refund: { policy: EToolCallVerdict.NEEDS_APPROVAL, approvalTtlMs: 60_000 },
        },
      },
      local: { command: process.execPath, args: ["--import", "tsx", stdioServer] },
    },
    policy: { profiles: { cautious: { approvals: ["mcp:local"] } } },
  });
}

describe("MCP tools: each call a tool job with the whole contract", () => {
  let shop: IHttpMcpServer;
  let harness: IHarness;

  beforeAll(async () => {
    shop = await startHttpMcpServer();
    harness = await createHarness(mcpGateway(shop.url), "mcp");
    await harness.startWorker();
  });
  afterAll(async () => {
    await harness.close();
    await shop.close();
  });

  async function ask(...entries: Parameters<typeof script>) {
    return harness.client.ask({ input: script(...entries), userContext: user });
  }

  it("offers the servers' tools as <server>__<tool> and runs a call over HTTP and over stdio", async () => {
    const response = await ask(
      {
        calls: [
          { name: "shop__echo", input: { text: "over http" } },
          { name: "local__echo", input: { text: "over stdio" } },
        ],
      },
      { text: "done" },
    );
    expect(response.status).toBe("completed");
    expect(response.toolResults.map((part) => [part.toolName, part.outcome, part.text])).toEqual([
      ["shop__echo", "ok", "over http"],
      ["local__echo", "ok", "over stdio"],
    ]);
    const offered = harness.model.requests()[0]?.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).toEqual(
      expect.arrayContaining(["shop__echo", "shop__refund", "local__echo", "local__exit_now"]),
    );
  });

  it("isError reaches the model as the seed's user-facing line; a transport failure as the generic 500", async () => {
    const response = await ask(
      { calls: [{ name: "shop__lookup_order", input: { orderId: "4711" } }] },
      { text: "done" },
    );
    expect(response.toolResults[0]).toMatchObject({
      outcome: "error",
      status: 422,
      errorCode: "TG_MCP_TOOL_ERROR",
    });
    expect(response.toolResults[0]?.text).toBe(
      "code: TG_MCP_TOOL_ERROR, status: 422, userMessage: No order 4711; ask for the number on the invoice.",
    );
  });

  it("the input is checked against the tool's JSON Schema before the server is called", async () => {
    const before = shop.ledger.calls.length;
    const response = await ask({ calls: [{ name: "shop__echo", input: { text: 5 } }] }, { text: "done" });
    expect(response.toolResults[0]).toMatchObject({
      outcome: "invalid_input",
      errorCode: "TG_INVALID_INPUT",
    });
    expect(response.toolResults[0]?.text).toContain("text: must be string");
    expect(shop.ledger.calls.length).toBe(before);
  });

  it("a tool past its timeoutMs (from the gateway's settings) is a 504; an output over the cap is truncated", async () => {
    const response = await ask(
      {
        calls: [
          { name: "shop__slow", input: { ms: 5_000 } },
          { name: "shop__big", input: { chars: 5_000 } },
        ],
      },
      { text: "done" },
    );
    const [slow, big] = response.toolResults;
    expect(slow).toMatchObject({ outcome: "timeout", status: 504 });
    expect(big).toMatchObject({ outcome: "ok" });
    expect(big?.truncatedChars).toBeGreaterThan(0);
    expect(big?.text.length).toBeLessThan(400);
  });

  it("a server that forgot the session (404) gets a new one and the call goes through", async () => {
    const sessionsBefore = shop.sessionsCreated();
    shop.forgetSessions();
    const response = await ask(
      { calls: [{ name: "shop__echo", input: { text: "again" } }] },
      { text: "done" },
    );
    expect(response.toolResults[0]).toMatchObject({ outcome: "ok", text: "again" });
    expect(shop.sessionsCreated()).toBe(sessionsBefore + 1);
  });

  it("a dropped stdio connection fails the call in flight as the generic 500, then reconnects", async () => {
    const response = await ask({ calls: [{ name: "local__exit_now", input: {} }] }, { text: "done" });
    expect(response.toolResults[0]).toMatchObject({
      outcome: "error",
      status: 500,
      errorCode: "TG_TOOL_FAILED",
    });
    const worker = harness.workers[0]!;
    await waitUntil(async () => {
      const readiness = await worker.readiness.check();
      return readiness.ready && !("mcpServersDown" in readiness && readiness.mcpServersDown?.length);
    });
    const after = await ask({ calls: [{ name: "local__echo", input: { text: "back" } }] }, { text: "done" });
    expect(after.toolResults[0]).toMatchObject({ outcome: "ok", text: "back" });
  });

  it("parked for approval: an edit is checked against the JSON Schema, then runs as edited", async () => {
    const { runId } = await harness.client.run({
      input: script(
        { calls: [{ name: "shop__refund", input: { chargeId: "ch_1", amount: 50 } }] },
        { text: "done" },
      ),
      userContext: user,
    });
    const [approval] = await waitUntil(async () => {
      const pending = await harness.client.approvals.list({ runId });
      return pending.length > 0 ? pending : undefined;
    });
    expect(approval).toMatchObject({ toolName: "shop__refund", input: { chargeId: "ch_1", amount: 50 } });
    const refused = await harness.client.approvals
      .approve(approval!.approvalId, { approver: "carol", input: { chargeId: "ch_1", amount: -5 } })
      .catch((error: unknown) => error);
    expect(TollgateError.is(refused, "TG_APPROVAL_INVALID_EDIT")).toBe(true);
    expect((refused as TollgateError).details?.issues?.[0]?.path).toBe("input.amount");
    await harness.client.approvals.approve(approval!.approvalId, {
      approver: "carol",
      input: { chargeId: "ch_1", amount: 20 },
    });
    const response = await harness.client.wait(runId);
    expect(response.toolResults[0]).toMatchObject({
      outcome: "ok",
      verdict: "NEEDS_APPROVAL",
      text: "refunded 20 on ch_1",
    });
    expect(shop.ledger.calls.filter((call) => call.tool === "refund")).toEqual([
      { tool: "refund", input: { chargeId: "ch_1", amount: 20 } },
    ]);
  });

  it("policy by tag: a profile's approvals naming mcp:<server> parks that server's calls", async () => {
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: "local__echo", input: { text: "careful" } }] }, { text: "done" }),
      userContext: { userId: "u-cautious", profile: "cautious" },
    });
    const [approval] = await waitUntil(async () => {
      const pending = await harness.client.approvals.list({ runId });
      return pending.length > 0 ? pending : undefined;
    });
    expect(approval?.toolName).toBe("local__echo");
    await harness.client.approvals.reject(approval!.approvalId, { approver: "carol", reason: "no" });
    expect((await harness.client.wait(runId)).toolResults[0]).toMatchObject({ outcome: "rejected" });
  });

  it("a run keeps the tool list it started with when the server's list changes mid-run", async () => {
    const { runId } = await harness.client.run({
      input: script(
        { calls: [{ name: "shop__refund", input: { chargeId: "ch_2", amount: 1 } }] },
        {
          calls: [
            { name: "shop__echo", input: { text: "gone?" } },
            { name: "shop__added_later", input: {} },
          ],
        },
        { text: "done" },
      ),
      userContext: user,
    });
    const [approval] = await waitUntil(async () => {
      const pending = await harness.client.approvals.list({ runId });
      return pending.length > 0 ? pending : undefined;
    });
    shop.removeTool("echo");
    shop.addTool("added_later");
    // The worker hears notifications/tools/list_changed: a new run is offered the new list.
    await waitUntil(async () => {
      const fresh = await ask({ text: "which tools?" });
      const offered =
        harness.model
          .requests()
          .at(-1)
          ?.tools?.map((tool) => tool.function.name) ?? [];
      return (
        fresh.status === "completed" &&
        offered.includes("shop__added_later") &&
        !offered.includes("shop__echo")
      );
    });
    await harness.client.approvals.approve(approval!.approvalId, { approver: "carol" });
    const response = await harness.client.wait(runId);
    expect(response.toolResults.map((part) => [part.toolName, part.outcome])).toEqual([
      ["shop__refund", "ok"],
      // Pinned, then gone from the server: unknown. New since the run started: not this run's tool.
      ["shop__echo", "unknown_tool"],
      ["shop__added_later", "unknown_tool"],
    ]);
    const view = await harness.client.getRun(runId);
    expect(view.status).toBe("completed");
  });
});

describe("an MCP server that cannot be reached at start-up", () => {
  let harness: IHarness;
  const registry = new Registry();

  beforeAll(async () => {
    const gateway = defineGateway({ tools: [], mcpServers: { gone: { url: "http://127.0.0.1:9/mcp" } } });
    harness = await createHarness(gateway, "mcp-down");
    await harness.startWorker({ registry });
  });
  afterAll(() => harness.close());

  it("does not stop the worker: /readyz names it, a metric counts it, runs go on without its tools", async () => {
    const readiness = await harness.workers[0]!.readiness.check();
    expect(readiness).toMatchObject({ ready: true, mcpServersDown: ["gone"] });
    const text = await registry.metrics();
    expect(text).toMatch(/tollgate_mcp_connect_failures_total\{[^}]*server="gone"[^}]*\} [1-9]/);
    expect(text).toMatch(/tollgate_mcp_server_up\{[^}]*server="gone"[^}]*\} 0/);
    const response = await harness.client.ask({ input: script({ text: "fine" }), userContext: user });
    expect(response.status).toBe("completed");
  });
});
