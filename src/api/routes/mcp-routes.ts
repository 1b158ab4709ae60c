import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { defineRoute } from "../http/route-definition.js";
import { createAskServer } from "../mcp/ask-server.js";
import { loadMcpServerSdk } from "../mcp/mcp-server-sdk.js";

/** What a client posts: one JSON-RPC 2.0 message of the Model Context Protocol (or a batch of them). */
const jsonRpcMessageSchema = z
  .looseObject({ jsonrpc: z.literal("2.0") })
  .describe("A JSON-RPC 2.0 message of the Model Context Protocol: a request, a notification or a response.");

const mcpBodySchema = z.union([jsonRpcMessageSchema, z.array(jsonRpcMessageSchema).min(1)]);

export const mcpRoute = defineRoute(
  {
    method: "POST",
    url: "/mcp",
    operationId: "mcp",
    summary: "The Model Context Protocol endpoint: the gateway's agent as the tool ask_<gateway name>",
    description:
      "Streamable HTTP, stateless (no `Mcp-Session-Id`): each request is answered on its own, so any replica " +
      "answers any request. `tools/list` shows one tool, `ask_<gateway name>`, whose arguments are " +
      "`POST /v1/ask`'s (input, threadId, userContext, tenant, model, limits, timeoutMs, metadata) and whose " +
      "output schema is the gateway's structured answer, when it has one. `tools/call` creates the run as " +
      "`POST /v1/ask` does (the token's tenant, subject and pinned profiles) and answers once it finished, " +
      "with progress notifications as it goes when the request carries a progressToken (a call parked for " +
      "approval names the approval). With the tasks extension (`params.task`), the call answers a task at " +
      "once: the run, by its id; `tasks/get` reads `input_required` while a call waits for approval, " +
      "`tasks/result` answers the tool's result once the run finished, `tasks/cancel` cancels it. " +
      "See docs/MCP-SERVER.md.",
    tag: "mcp",
    // A call waits for its run (approvals included) as long as it takes: no whole-request Redis budget.
    waits: true,
    access: "runs:write",
    schemas: { body: mcpBodySchema },
    responses: {
      200: {
        description:
          "The JSON-RPC response as Server-Sent Events: progress notifications first, then the answer.",
        contentType: "text/event-stream",
      },
      202: { description: "A notification or response, accepted.", contentType: "text/plain" },
    },
    errors: [],
  },
  async (request, reply, context) => {
    const sdk = await loadMcpServerSdk();
    const server = createAskServer(sdk, request, context);
    // Stateless: a transport per request, which the SDK refuses to reuse.
    const transport = new sdk.StreamableHTTPServerTransport({});
    reply.hijack();
    const close = async () => {
      await transport.close();
      await server.close();
    };
    const untrack = context.mcpRequests.track(close);
    reply.raw.once("close", () => {
      untrack();
      void close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      request.log.error({ err: error }, "The MCP request failed.");
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { "content-type": "application/json" });
        reply.raw.end(
          JSON.stringify({ jsonrpc: "2.0", error: { code: -32603, message: "Internal error" }, id: null }),
        );
      }
    }
    return reply;
  },
);

/**
 * `GET /mcp` answers 405: a stateless MCP server has nothing to tell a client outside its requests, so it
 * opens no stream, and MCP clients read 405 as that and carry on (a 404 would be reported to them as an
 * error). Outside the route table: it is no operation of the API's document, and it tells nothing.
 */
export function registerMcpStreamRefusal(app: FastifyInstance): void {
  app.get("/mcp", async (_request, reply) =>
    reply
      .code(405)
      .header("allow", "POST")
      .send({
        jsonrpc: "2.0",
        error: { code: -32000, message: "Method not allowed: POST to /mcp." },
        id: null,
      }),
  );
}
