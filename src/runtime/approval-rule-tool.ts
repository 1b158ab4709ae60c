import { mcpServerOfToolName, mcpServerTagsOf } from "../gateway/index.js";
import type { IRuleTool } from "../policy/index.js";
import type { IApproval } from "../store/index.js";
import { noMcpConnection, pinnedMcpTools } from "./pinned-tools.js";
import type { ITollgateRuntime } from "./runtime.js";

/**
 * The tool of an approval as the approver rules and the notification filters see it: its name and tags.
 * An MCP tool's tags (`mcp:<server>`, the gateway's settings') come from the run's pinned list, as the
 * model saw the tool; a list that is gone still gives its server's tags (by the name's `<server>__`
 * prefix), so a rule or a target on the server keeps applying to its calls. A tool the gateway no longer
 * has is matched by its name alone.
 */
export async function ruleToolOfApproval(
  runtime: ITollgateRuntime,
  approval: Pick<IApproval, "toolName" | "toolListHash">,
): Promise<IRuleTool> {
  const { gateway } = runtime;
  const own = gateway.catalogue.get(approval.toolName);
  if (own !== undefined) return { name: approval.toolName, tags: own.tags };
  const server = mcpServerOfToolName(gateway.settings.mcpServers, approval.toolName);
  if (server === undefined) return { name: approval.toolName };
  const pinned = await pinnedMcpTools(runtime, approval.toolListHash, noMcpConnection);
  const tool = pinned.find((candidate) => candidate.tool.name === approval.toolName)?.tool;
  return {
    name: approval.toolName,
    tags: tool?.tags ?? mcpServerTagsOf(gateway.settings.mcpServers, server),
  };
}
