import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";

/** The parts of the MCP SDK the `/mcp` route uses. */
export interface IMcpServerSdk {
  Server: typeof Server;
  StreamableHTTPServerTransport: typeof StreamableHTTPServerTransport;
  CallToolRequestSchema: typeof CallToolRequestSchema;
  ListToolsRequestSchema: typeof ListToolsRequestSchema;
  McpError: typeof McpError;
  ErrorCode: typeof ErrorCode;
}

let loading: Promise<IMcpServerSdk> | undefined;

/**
 * The MCP SDK's server, imported with the first `/mcp` request: an API nobody reaches over MCP does not
 * carry it (the SDK is megabytes of schemas, as its client is for workers: src/mcp/mcp-sdk.ts).
 */
export function loadMcpServerSdk(): Promise<IMcpServerSdk> {
  loading ??= Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]).then(([server, transport, types]) => ({
    Server: server.Server,
    StreamableHTTPServerTransport: transport.StreamableHTTPServerTransport,
    CallToolRequestSchema: types.CallToolRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
  }));
  return loading;
}
