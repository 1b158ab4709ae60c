import type { TMcpToolList } from "../contracts/index.js";
import { type IPinnedMcpTool, mcpToolDefsOf, type TMcpToolCall } from "../gateway/index.js";
import type { ITollgateRuntime } from "./runtime.js";

/** The definitions of a pinned list, built once per list (a list read once per hash stays the same object). */
const definitionsByList = new WeakMap<TMcpToolList, IPinnedMcpTool[]>();

/**
 * The MCP tools a run pinned (TRunState.toolListHash), as tool definitions with the schemas its model saw
 * and the gateway's settings for them. `call` reaches the servers (a worker's pool); a process without
 * connections (the API, deciding an edit) passes one that refuses. A list that is gone gives no tools:
 * their calls settle as unknown.
 */
export async function pinnedMcpTools(
  runtime: ITollgateRuntime,
  toolListHash: string | undefined,
  call: TMcpToolCall,
): Promise<IPinnedMcpTool[]> {
  if (toolListHash === undefined || Object.keys(runtime.gateway.settings.mcpServers).length === 0) return [];
  const list = await runtime.toolLists.get(toolListHash);
  if (list === undefined) return [];
  let definitions = definitionsByList.get(list);
  if (definitions === undefined) {
    definitions = mcpToolDefsOf(runtime.gateway.settings.mcpServers, list, call);
    definitionsByList.set(list, definitions);
  }
  return definitions;
}

/** For a process that holds no MCP connection: a pinned tool is described, never called, there. */
export const noMcpConnection: TMcpToolCall = async ({ server }) => {
  throw new Error(`This process holds no connection to the MCP server "${server}".`);
};
