import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

/** The parts of the MCP SDK a connection uses. */
export interface IMcpSdk {
  Client: typeof Client;
  StdioClientTransport: typeof StdioClientTransport;
  getDefaultEnvironment: typeof getDefaultEnvironment;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  StreamableHTTPError: typeof StreamableHTTPError;
  ToolListChangedNotificationSchema: typeof ToolListChangedNotificationSchema;
}

let loading: Promise<IMcpSdk> | undefined;

/**
 * The MCP SDK, imported with the first connection. Most gateways mount no MCP server, and the SDK (its
 * zod schemas for the whole protocol, a second zod API, zod-to-json-schema, ajv) is about 9 MB of a
 * worker's resident memory that such a worker would carry for nothing (docs/BENCHMARKS.md, Worker RSS).
 */
export function loadMcpSdk(): Promise<IMcpSdk> {
  loading ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]).then(([client, stdio, streamableHttp, types]) => ({
    Client: client.Client,
    StdioClientTransport: stdio.StdioClientTransport,
    getDefaultEnvironment: stdio.getDefaultEnvironment,
    StreamableHTTPClientTransport: streamableHttp.StreamableHTTPClientTransport,
    StreamableHTTPError: streamableHttp.StreamableHTTPError,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
  }));
  return loading;
}
