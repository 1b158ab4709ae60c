import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  type Progress,
} from "@modelcontextprotocol/sdk/types.js";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildApi, type IApiToken } from "../../../src/api/index.js";
import { defineTool, EToolCallVerdict } from "../../../src/contracts/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { silentLogger } from "./api-fixture.js";

/*
 * The gateway as an MCP server, driven by the MCP SDK's own client over streamable HTTP: the API on a real
 * socket, a real worker on real Redis and BullMQ, the scripted model. The gateway answers in a structured
 * shape, and one of its tools waits for a person's approval.
 */

const answerSchema = z.object({ answer: z.string() });

const gateway = defineGateway({
  name: "helpdesk",
  tools: [
    defineTool({
      name: "lookup_order",
      description: "Looks an order up.",
      inputSchema: z.object({ orderId: z.string() }),
      readOnly: true,
      execute: async ({ input }) => ({ orderId: input.orderId, status: "shipped" }),
    }),
    defineTool({
      name: "refund",
      description: "Refunds an order; a person approves each refund.",
      inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
      policy: EToolCallVerdict.NEEDS_APPROVAL,
      execute: async ({ input }) => ({ refunded: input.amount }),
    }),
  ],
  output: { schema: answerSchema, name: "answer" },
});

const tokens = {
  writer: { token: "mcp-writer-token-0123456789abcdef", subject: "svc-writer", roles: ["runs:write"] },
  acme: {
    token: "mcp-acme-token-0123456789abcdef",
    subject: "acme-svc",
    roles: ["runs:write"],
    tenant: "acme",
  },
  reader: { token: "mcp-reader-token-0123456789abcdef", subject: "svc-reader", roles: ["runs:read"] },
} satisfies Record<string, IApiToken>;

const toolName = "ask_helpdesk";

let harness: IHarness;
let app: FastifyInstance;
let mcpUrl: URL;
const clients: Client[] = [];

/** The SDK's client, connected to /mcp with a token (initialize and initialized, as any client does). */
async function connect(token: string): Promise<Client> {
  const client = new Client({ name: "mcp-server-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(mcpUrl, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
}

beforeAll(async () => {
  harness = await createHarness(gateway, "mcp-server");
  await harness.startWorker();
  app = await buildApi({ client: harness.client, tokens: Object.values(tokens), logger: silentLogger() });
  mcpUrl = new URL("/mcp", await app.listen({ host: "127.0.0.1", port: 0 }));
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await app?.close();
  await harness?.close();
});

/** The run a tool result names (its `_meta`). */
function runIdOf(result: { _meta?: Record<string, unknown> | undefined }): string {
  const run = result._meta?.["tollgate/run"] as { runId: string } | undefined;
  if (run === undefined) throw new Error("The result names no run.");
  return run.runId;
}

describe("the gateway as an MCP server (/mcp)", () => {
  it("lists its agent as ask_<gateway name>, with the run's arguments and the gateway's output schema", async () => {
    const client = await connect(tokens.writer.token);
    expect(client.getServerVersion()?.name).toBe("helpdesk");
    expect(client.getServerCapabilities()?.tasks?.requests?.tools?.call).toBeDefined();
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1);
    const [tool] = tools;
    expect(tool?.name).toBe(toolName);
    expect(tool?.execution?.taskSupport).toBe("optional");
    expect(tool?.inputSchema).toMatchObject({
      type: "object",
      required: ["input"],
      properties: { input: { type: "string" }, threadId: { type: "string" }, timeoutMs: { type: "integer" } },
    });
    expect(tool?.outputSchema).toMatchObject({
      type: "object",
      properties: { answer: { type: "string" } },
      required: ["answer"],
    });
  });

  it("a call completes with the run's answer, structured, and the run is the caller's", async () => {
    const client = await connect(tokens.writer.token);
    const result = await client.callTool({
      name: toolName,
      arguments: {
        input: script(
          { calls: [{ name: "lookup_order", input: { orderId: "A-1" } }] },
          { text: '{"answer":"shipped"}' },
        ),
      },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ answer: "shipped" });
    expect(result.content).toEqual([{ type: "text", text: '{"answer":"shipped"}' }]);
    const run = await harness.client.getRun(runIdOf(result));
    expect(run).toMatchObject({ status: "completed", createdBy: "svc-writer", userId: "svc-writer" });
    expect(run.tenant ?? "default").toBe("default");
  });

  it("a call that parks tells its approval in a progress notification, and answers once it is approved", async () => {
    const client = await connect(tokens.writer.token);
    const messages: string[] = [];
    const call = client.callTool(
      {
        name: toolName,
        arguments: {
          input: script(
            { calls: [{ name: "refund", input: { orderId: "A-2", amount: 30 } }] },
            { text: '{"answer":"refunded"}' },
          ),
        },
      },
      undefined,
      {
        onprogress: (progress: Progress) => messages.push(progress.message ?? ""),
        resetTimeoutOnProgress: true,
      },
    );
    const parked = await waitUntil(() => messages.find((message) => message.includes("waits for approval")), {
      message: "a progress notification naming the approval",
    });
    const approvalId = /waits for approval (\S+?)[: ]/.exec(parked)?.[1] ?? "";
    expect(parked).toContain("refund");
    expect(parked).toContain("approvals:decide");
    const [pending] = (await harness.client.approvals.page({ status: "pending" })).approvals.filter(
      (approval) => approval.approvalId === approvalId,
    );
    expect(pending?.toolName).toBe("refund");
    await harness.client.approvals.approve(approvalId, { approver: "alice" });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ answer: "refunded" });
    expect(
      messages.some((message) => message.includes(`Approval ${approvalId} of refund: approved by alice`)),
    ).toBe(true);
    expect(messages.at(-1)).toBe("The run ended completed.");
  });

  it("a task-augmented call is the run as a task: input_required while parked, completed with the answer once approved", async () => {
    const client = await connect(tokens.writer.token);
    const { task } = await client.request(
      {
        method: "tools/call",
        params: {
          name: toolName,
          arguments: {
            input: script(
              { calls: [{ name: "refund", input: { orderId: "A-3", amount: 40 } }] },
              { text: '{"answer":"refunded as a task"}' },
            ),
          },
          task: { ttl: 60_000 },
        },
      },
      CreateTaskResultSchema,
    );
    expect(["working", "input_required"]).toContain(task.status);
    const parked = await waitUntil(
      async () => {
        const current = await client.experimental.tasks.getTask(task.taskId);
        return current.status === "input_required" ? current : undefined;
      },
      { message: "the task in input_required" },
    );
    const view = await harness.client.getRun(task.taskId);
    const [approval] = view.pendingApprovals;
    expect(parked.statusMessage).toContain(`waits for approval ${approval?.approvalId}`);
    await harness.client.approvals.approve(approval?.approvalId ?? "", { approver: "alice" });
    const done = await waitUntil(
      async () => {
        const current = await client.experimental.tasks.getTask(task.taskId);
        return current.status === "completed" ? current : undefined;
      },
      { message: "the task completed" },
    );
    expect(done.taskId).toBe(task.taskId);
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toEqual({ answer: "refunded as a task" });
    const metrics = await (await fetch(new URL("/metrics", mcpUrl))).text();
    expect(metrics).toContain('tollgate_mcp_tool_calls_total{mode="task"} 1');
  });

  it("tasks/cancel cancels the run: its approval is withdrawn and the task ends cancelled", async () => {
    const client = await connect(tokens.writer.token);
    const { task } = await client.request(
      {
        method: "tools/call",
        params: {
          name: toolName,
          arguments: { input: script({ calls: [{ name: "refund", input: { orderId: "A-5", amount: 9 } }] }) },
          task: {},
        },
      },
      CreateTaskResultSchema,
    );
    await waitUntil(
      async () => (await client.experimental.tasks.getTask(task.taskId)).status === "input_required",
      {
        message: "the task in input_required",
      },
    );
    const [approval] = (await harness.client.getRun(task.taskId)).pendingApprovals;
    await client.experimental.tasks.cancelTask(task.taskId);
    await waitUntil(
      async () => (await client.experimental.tasks.getTask(task.taskId)).status === "cancelled",
      {
        message: "the task cancelled",
      },
    );
    expect((await harness.client.approvals.get(approval?.approvalId ?? "")).status).toBe("cancelled");
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: `Run ${task.taskId} ended cancelled.` }],
    });
  });

  it("a tenant's token creates its runs in its tenant, and another tenant's token sees no such task", async () => {
    const acme = await connect(tokens.acme.token);
    const result = await acme.callTool({
      name: toolName,
      arguments: { input: script({ text: '{"answer":"acme"}' }) },
    });
    expect(result.structuredContent).toEqual({ answer: "acme" });
    const runId = runIdOf(result);
    expect(await harness.client.getRun(runId)).toMatchObject({ tenant: "acme", createdBy: "acme-svc" });
    expect((await acme.experimental.tasks.getTask(runId)).status).toBe("completed");
    const other = await connect(tokens.writer.token);
    await expect(other.experimental.tasks.getTask(runId)).rejects.toThrow(/not found/i);
    // A tenant the token does not have is refused as POST /v1/ask refuses it: the tool's error, no run.
    const refused = await acme.callTool({ name: toolName, arguments: { input: "hello", tenant: "globex" } });
    expect(refused.isError).toBe(true);
    expect(refused.content).toEqual([{ type: "text", text: expect.stringMatching(/^TG_FORBIDDEN: /) }]);
  });

  it("refuses an unknown tool with an MCP error, and arguments the schema refuses as the tool's error", async () => {
    const client = await connect(tokens.writer.token);
    await expect(client.callTool({ name: "ask_nobody", arguments: { input: "hi" } })).rejects.toThrow(
      /Unknown tool: ask_nobody/,
    );
    const invalid = await client.callTool({ name: toolName, arguments: { input: "" } });
    expect(invalid.isError).toBe(true);
    expect(invalid.content).toEqual([
      { type: "text", text: expect.stringMatching(/^TG_INVALID_REQUEST: input/) },
    ]);
  });

  it("closing the API ends a call that waits for an approval (the run goes on)", async () => {
    const second = await buildApi({
      client: harness.client,
      tokens: Object.values(tokens),
      logger: silentLogger(),
    });
    const secondUrl = new URL("/mcp", await second.listen({ host: "127.0.0.1", port: 0 }));
    const client = new Client({ name: "mcp-server-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(secondUrl, {
        requestInit: { headers: { authorization: `Bearer ${tokens.writer.token}` } },
      }),
    );
    const messages: string[] = [];
    const call = client.callTool(
      {
        name: toolName,
        arguments: { input: script({ calls: [{ name: "refund", input: { orderId: "A-4", amount: 5 } }] }) },
      },
      undefined,
      { onprogress: (progress: Progress) => messages.push(progress.message ?? "") },
    );
    const settled = call.then(
      () => "answered",
      () => "ended",
    );
    const parked = await waitUntil(() => messages.find((message) => message.includes("waits for approval")));
    // Without ending it, close() would wait for the call, that is for a person.
    await second.close();
    // The SDK's client keeps a request whose stream ended waiting (to resume it): closing it ends the call.
    await client.close();
    expect(await settled).toBe("ended");
    const approvalId = /waits for approval (\S+?)[: ]/.exec(parked)?.[1] ?? "";
    const approval = await harness.client.approvals.get(approvalId);
    expect(approval.status).toBe("pending");
  });

  it("answers a request by hand (docs/MCP-SERVER.md's curl): tools/list alone, as one Server-Sent Event", async () => {
    const response = await fetch(mcpUrl, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tokens.writer.token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const data = (await response.text()).split("\n").find((line) => line.startsWith("data: "));
    expect(JSON.parse(data?.slice("data: ".length) ?? "{}")).toMatchObject({
      jsonrpc: "2.0",
      id: 1,
      result: { tools: [{ name: toolName }] },
    });
  });

  it("answers 401 without a valid token and 403 without runs:write, as every route; GET is 405", async () => {
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    };
    const post = (headers: Record<string, string>) =>
      fetch(mcpUrl, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body: JSON.stringify(initialize),
      });
    const anonymous = await post({});
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe("TG_UNAUTHORIZED");
    const wrong = await post({ authorization: "Bearer not-a-token-0123456789" });
    expect(wrong.status).toBe(401);
    await wrong.body?.cancel();
    const reader = await post({ authorization: `Bearer ${tokens.reader.token}` });
    expect(reader.status).toBe(403);
    await reader.body?.cancel();
    const stream = await fetch(mcpUrl, { headers: { authorization: `Bearer ${tokens.writer.token}` } });
    expect(stream.status).toBe(405);
    expect(stream.headers.get("allow")).toBe("POST");
    await stream.body?.cancel();
    await expect(connect("not-a-token-0123456789")).rejects.toMatchObject({ code: 401 });
  });
});
