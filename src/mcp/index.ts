// MCP servers' tools: one connection per worker and server (streamable HTTP or stdio), the tool lists they
// serve, and their results as what the model reads. Shell: network and child processes.
export {
  type IListedMcpTool,
  type IMcpBackoff,
  McpServerConnection,
  McpServerUnavailableError,
  type TMcpConnectionStatus,
} from "./mcp-connection.js";
export { type IMcpPoolMetrics, type IMcpServerState, McpPool } from "./mcp-pool.js";
export { outputOfMcpResult } from "./mcp-tool-result.js";
