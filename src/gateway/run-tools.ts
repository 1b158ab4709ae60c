import { TollgateError } from "../errors/index.js";
import { ToolRegistry } from "../tools/index.js";
import type { IGateway } from "./define-gateway.js";
import { mcpServerOfToolName } from "./mcp-tools.js";

export interface IRunToolSelection {
  /**
   * Narrows the default tools to these names. A name of a mounted MCP server's tool (`<server>__…`) narrows
   * the run's MCP tools too; it is checked against what the workers published (enqueue), not here.
   */
  tools?: readonly string[] | undefined;
  /** Names from the gateway's extraTools that join for this run only. */
  additionalTools?: readonly string[] | undefined;
}

const cacheByGateway = new WeakMap<IGateway, Map<string, ToolRegistry>>();

/**
 * The tools of one run that the gateway defines: the defaults, narrowed by `tools`, joined by
 * `additionalTools` (which must name extra tools; a default tool's name is a clash, and so is an MCP tool's,
 * since MCP tools join every run as defaults do). The run's MCP tools are joined by the worker. Throws a TollgateError naming the first bad name, which
 * is how enqueue rejects a request before anything is queued. Registries are cached per selection: a
 * worker asks for them at every activation.
 */
export function runToolRegistry(gateway: IGateway, selection: IRunToolSelection): ToolRegistry {
  const key = JSON.stringify([selection.tools ?? null, selection.additionalTools ?? []]);
  let cache = cacheByGateway.get(gateway);
  if (!cache) {
    cache = new Map();
    cacheByGateway.set(gateway, cache);
  }
  const cached = cache.get(key);
  if (cached) return cached;
  const built = buildRunToolRegistry(gateway, selection);
  if (cache.size < 1000) cache.set(key, built);
  return built;
}

function buildRunToolRegistry(gateway: IGateway, selection: IRunToolSelection): ToolRegistry {
  let base = gateway.registry;
  const servers = gateway.settings.mcpServers;
  if (selection.tools) {
    for (const name of selection.tools) {
      if (!gateway.registry.has(name) && mcpServerOfToolName(servers, name) === undefined) {
        throw new TollgateError(
          "TG_UNKNOWN_TOOL",
          `Unknown tool "${name}" in tools: the gateway offers no such tool.`,
          {
            issues: [{ path: "tools", message: `unknown tool "${name}"` }],
          },
        );
      }
    }
    const chosen = new Set(selection.tools);
    base = new ToolRegistry({
      tools: gateway.registry.list().filter((tool) => chosen.has(tool.name)),
      maxOutputChars: gateway.settings.maxOutputChars,
      toolTimeoutMs: gateway.settings.toolTimeoutMs,
      maxStoredOutputBytes: gateway.settings.maxStoredOutputBytes,
      isolation: gateway.settings.isolation,
      ...(gateway.definition.onToolError ? { onToolError: gateway.definition.onToolError } : {}),
    });
  }
  const additional = (selection.additionalTools ?? []).map((name) => {
    const server = mcpServerOfToolName(servers, name);
    if (server !== undefined) {
      throw new TollgateError(
        "TG_TOOL_NAME_CLASH",
        `Additional tool "${name}" is a tool of the MCP server "${server}", which joins every run: ` +
          "name it in tools to narrow a run's tools, not in additionalTools.",
        { issues: [{ path: "additionalTools", message: `"${name}" is an MCP tool, offered by default` }] },
      );
    }
    if (gateway.registry.has(name)) {
      throw new TollgateError(
        "TG_TOOL_NAME_CLASH",
        `Additional tool "${name}" is already one of the gateway's default tools.`,
        { issues: [{ path: "additionalTools", message: `"${name}" is a default tool` }] },
      );
    }
    const tool = gateway.extraToolNames.has(name) ? gateway.catalogue.get(name) : undefined;
    if (!tool) {
      throw new TollgateError(
        "TG_UNKNOWN_TOOL",
        `Unknown tool "${name}" in additionalTools: it is not in the gateway's extraTools.`,
        { issues: [{ path: "additionalTools", message: `unknown tool "${name}"` }] },
      );
    }
    return tool;
  });
  return additional.length === 0 ? base : base.withAdditional(additional);
}
