import { defineRoute } from "../http/route-definition.js";
import { toolListSchema } from "../schemas/response-schemas.js";

export const listToolsRoute = defineRoute(
  {
    method: "GET",
    url: "/v1/tools",
    operationId: "listTools",
    summary: "The tool catalogue",
    description:
      "Any valid token may read it: writing a run request needs the tool names. The gateway's tools, then " +
      "each mounted MCP server's tools as the workers published them (this process holds no MCP " +
      "connection), and each server's status in `mcpServers`: `not_listed` while no worker has published " +
      "its tools (none running, none reaching the server).",
    tag: "tools",
    access: "authenticated",
    schemas: {},
    responses: { 200: { description: "Every tool of the gateway.", schema: toolListSchema } },
    errors: ["TG_REDIS_UNAVAILABLE"],
  },
  async (_request, _reply, { client }) => client.listTools(),
);
