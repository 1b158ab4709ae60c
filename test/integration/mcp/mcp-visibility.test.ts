import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApi, type IApiToken } from "../../../src/api/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import {
  type IHttpMcpServer,
  shopServerSettings,
  startHttpMcpServer,
} from "../../fixtures/mcp-test-server.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

// MCP tools as the API sees them, over HTTP on real Redis with the test MCP server: the API process holds
// no MCP connection and learns the tools from what the workers publish. Before any worker has published,
// the listing says so and a named MCP tool is accepted (its server may be late); once published, the
// listing shows each tool and a name the server does not list is a 422. Approver rules see MCP names and tags.

const tokens = {
  writer: {
    token: "writer-token-0123456789abcdef",
    subject: "svc-writer",
    roles: ["runs:write", "runs:read"],
  },
  alice: { token: "alice-token-0123456789abcdef", subject: "alice", roles: ["approvals:decide"] },
  carol: { token: "carol-token-0123456789abcdef", subject: "carol", roles: ["approvals:decide"] },
} satisfies Record<string, IApiToken>;

const userContext = { userId: "u-mcp-visible" };

// A JSON answer as the test reads it: fields are checked by the assertions, not by the compiler.
// biome-ignore lint/suspicious/noExplicitAny: the assertions check the answer's shape
type TJson = any;

describe("MCP tools are visible to the API: listing, run requests, approver rules", () => {
  let shop: IHttpMcpServer;
  let harness: IHarness;
  let app: FastifyInstance;
  let base: string;

  async function call(
    token: keyof typeof tokens,
    method: "GET" | "POST",
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: TJson }> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${tokens[token].token}`,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, json: await response.json() };
  }

  beforeAll(async () => {
    shop = await startHttpMcpServer();
    const gateway = defineGateway({
      tools: [],
      mcpServers: {
        shop: shopServerSettings(shop.url),
      },
      approvals: {
        rules: [
          { name: "shop-tools", tags: ["mcp:shop"], approvers: { subjects: ["carol"] } },
          { name: "refunds", tools: ["shop__refund"], approvers: { subjects: ["carol", "dave"] } },
        ],
      },
    });
    harness = await createHarness(gateway, "mcp-visible");
    app = await buildApi({
      client: harness.client,
      tokens: Object.values(tokens),
      logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app?.close();
    await harness?.close();
    await shop?.close();
  });

  it("before any worker published: the listing says the server is not listed; a named MCP tool is accepted", async () => {
    const listing = await call("writer", "GET", "/v1/tools");
    expect(listing.status).toBe(200);
    expect(listing.json.mcpServers).toEqual([{ server: "shop", status: "not_listed" }]);
    expect(listing.json.tools).toEqual([]);
    const accepted = await call("writer", "POST", "/v1/runs", {
      input: script({ calls: [{ name: "shop__echo", input: { text: "early" } }] }, { text: "done" }),
      userContext,
      tools: ["shop__echo"],
    });
    expect(accepted.status).toBe(202);
    // The run waits in the queue for a worker; it runs once one starts (next test).
    await harness.startWorker();
    const finished = await harness.client.wait(accepted.json.runId);
    expect(finished.toolResults.map((part) => [part.toolName, part.outcome, part.text])).toEqual([
      ["shop__echo", "ok", "early"],
    ]);
  });

  it("GET /v1/tools lists the tools a worker published, with schema, tags, policy and server", async () => {
    const listing = await waitUntil(async () => {
      const answer = await call("writer", "GET", "/v1/tools");
      return answer.json.mcpServers?.[0]?.status === "listed" ? answer.json : undefined;
    });
    expect(listing.mcpServers).toEqual([
      {
        server: "shop",
        status: "listed",
        toolListHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        publishedAt: expect.any(Number),
        tools: 6,
      },
    ]);
    const names = listing.tools.map((tool: { name: string }) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(["shop__echo", "shop__refund", "shop__lookup_order", "shop__big"]),
    );
    const refund = listing.tools.find((tool: { name: string }) => tool.name === "shop__refund");
    expect(refund).toMatchObject({
      name: "shop__refund",
      description: "Refunds a charge.",
      tags: ["mcp:shop", "payments", "money"],
      policyKind: "NEEDS_APPROVAL",
      mayNeedApproval: true,
      readOnly: false,
      idempotent: false,
      extra: false,
      mcpServer: "shop",
      inputSchema: { type: "object", properties: { chargeId: { type: "string" } } },
    });
    // The server's annotations (readOnlyHint, idempotentHint), unless the gateway's settings say otherwise.
    const byName = (name: string) => listing.tools.find((tool: { name: string }) => tool.name === name);
    expect(byName("shop__echo")).toMatchObject({ readOnly: true, idempotent: true });
    expect(byName("shop__lookup_order")).toMatchObject({ readOnly: false, idempotent: false });
  });

  it("tools may name MCP tools (narrowing them too); an unlisted name is a 422; additionalTools refuses them", async () => {
    const before = harness.model.requests().length;
    const narrowed = await call("writer", "POST", "/v1/runs", {
      input: script({ text: "narrowed" }),
      userContext,
      tools: ["shop__echo"],
    });
    expect(narrowed.status).toBe(202);
    await harness.client.wait(narrowed.json.runId);
    const offered = harness.model.requests()[before]?.tools?.map((tool) => tool.function.name);
    expect(offered).toEqual(["shop__echo"]);

    const unknown = await call("writer", "POST", "/v1/runs", {
      input: "hi",
      userContext,
      tools: ["shop__no_such_tool"],
    });
    expect(unknown.status).toBe(422);
    expect(unknown.json.error).toMatchObject({ code: "TG_UNKNOWN_TOOL" });
    expect(unknown.json.error.message).toContain("shop__no_such_tool");

    const clash = await call("writer", "POST", "/v1/runs", {
      input: "hi",
      userContext,
      additionalTools: ["shop__echo"],
    });
    expect(clash.status).toBe(422);
    expect(clash.json.error).toMatchObject({ code: "TG_TOOL_NAME_CLASH" });
  });

  it("approver rules by MCP tag and by MCP tool name decide who may approve", async () => {
    const created = await call("writer", "POST", "/v1/runs", {
      input: script(
        { calls: [{ name: "shop__refund", input: { chargeId: "ch_9", amount: 3 } }] },
        { text: "done" },
      ),
      userContext,
    });
    expect(created.status).toBe(202);
    const runId = created.json.runId as string;
    const [approval] = await waitUntil(async () => {
      const pending = await harness.client.approvals.list({ runId });
      return pending.length > 0 ? pending : undefined;
    });
    const refused = await call("alice", "POST", `/v1/approvals/${approval!.approvalId}/approve`, {});
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({ code: "TG_FORBIDDEN" });
    expect(["shop-tools", "refunds"]).toContain(refused.json.error.details?.rule);
    const approved = await call("carol", "POST", `/v1/approvals/${approval!.approvalId}/approve`, {});
    expect(approved.status).toBe(200);
    const response = await harness.client.wait(runId);
    expect(response.toolResults[0]).toMatchObject({ outcome: "ok", text: "refunded 3 on ch_9" });
  });
});
