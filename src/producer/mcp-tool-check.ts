import { TollgateError } from "../errors/index.js";
import { mcpServerOfToolName } from "../gateway/index.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";

/**
 * The MCP tools a request's `tools` names, checked against what the workers published (this process holds
 * no MCP connection): a name its server's published list lacks is TG_UNKNOWN_TOOL; a name of a server no
 * worker has published is accepted, since the server or the workers may be late (the run is offered the
 * named tools its server lists when it starts). Reads Redis only when a request names an MCP tool.
 */
export async function assertMcpToolsListed(
  runtime: ITollgateRuntime,
  tools: readonly string[] | undefined,
): Promise<void> {
  if (tools === undefined) return;
  const { gateway } = runtime;
  const named = tools.flatMap((name) => {
    const server = gateway.registry.has(name)
      ? undefined
      : mcpServerOfToolName(gateway.settings.mcpServers, name);
    return server === undefined ? [] : [{ name, server }];
  });
  if (named.length === 0) return;
  const published = await runtime.mcpTools.read([...new Set(named.map(({ server }) => server))]);
  for (const { name, server } of named) {
    const list = published.get(server);
    if (list === undefined || list.tools.some((tool) => tool.name === name)) continue;
    throw new TollgateError(
      "TG_UNKNOWN_TOOL",
      `Unknown tool "${name}" in tools: the MCP server "${server}" does not list it ` +
        `(its list as a worker published it at ${new Date(list.publishedAt).toISOString()}).`,
      { issues: [{ path: "tools", message: `unknown tool "${name}"` }] },
    );
  }
}
