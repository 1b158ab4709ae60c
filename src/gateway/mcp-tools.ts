import type { TAnyToolDef, TMcpToolEntry, TMcpToolList } from "../contracts/index.js";
import { jsonSchemaInput, mcpToolMarker } from "../tools/index.js";
import type { TMcpServersSettings, TMcpToolSettings } from "./mcp-settings.js";

/** Calls one tool on its server; what it returns is the tool's output, what it throws the tool's error. */
export type TMcpToolCall = (args: {
  server: string;
  mcpName: string;
  input: unknown;
  abortSignal: AbortSignal;
}) => Promise<unknown>;

/** The tag every tool of a server has, for policy by tag (`policy.profiles.*.approvals`, allow/deny tags). */
export function mcpServerTag(server: string): string {
  return `mcp:${server}`;
}

/**
 * A pinned tool list as tool definitions: the server's name, description and JSON Schema, the gateway's
 * settings for the server and the tool (policy, limits, endsRun, visibleWhen, tags), and an execute that
 * calls the server. Inline always: an isolated tool runs in a thread or process that re-imports the gateway
 * and has no connection. A tool of a server the gateway no longer mounts is left out (it settles as unknown).
 */
export function mcpToolDefsOf(
  servers: TMcpServersSettings,
  list: TMcpToolList,
  call: TMcpToolCall,
): IPinnedMcpTool[] {
  return list.tools.flatMap((entry) => {
    const server = Object.hasOwn(servers, entry.server) ? servers[entry.server] : undefined;
    if (server === undefined) return [];
    const own = Object.hasOwn(server.tools, entry.mcpName) ? server.tools[entry.mcpName] : undefined;
    // Tags add up (a rule or policy on the server's tag keeps guarding a tool given tags of its own);
    // every other setting of the tool's replaces the server's.
    const tags = [...(server.tags ?? []), ...(own?.tags ?? [])];
    const settings = { ...pickToolSettings(server), ...(own ?? {}), tags };
    return [{ entry, tool: toolDefOf(entry, settings, call) }];
  });
}

/** One pinned MCP tool: where it lives, and its definition. */
export interface IPinnedMcpTool {
  entry: TMcpToolEntry;
  tool: TAnyToolDef;
}

function toolDefOf(entry: TMcpToolEntry, settings: TMcpToolSettings, call: TMcpToolCall): TAnyToolDef {
  const { tags = [], ...contract } = withoutUndefined(settings);
  const tool: TAnyToolDef = {
    // What the server says of its tool's effects (its annotations), unless the gateway says otherwise.
    ...(entry.readOnly !== undefined ? { readOnly: entry.readOnly } : {}),
    ...(entry.idempotent !== undefined ? { idempotent: entry.idempotent } : {}),
    ...contract,
    name: entry.name,
    // An MCP tool may come with no description: the model still needs words to pick it by.
    description:
      entry.description.trim() === "" ? `The tool "${entry.mcpName}" of ${entry.server}.` : entry.description,
    inputSchema: jsonSchemaInput(entry.inputSchema),
    tags: [mcpServerTag(entry.server), ...tags],
    isolation: "inline",
    execute: ({ input, abortSignal }) =>
      call({ server: entry.server, mcpName: entry.mcpName, input, abortSignal }),
  };
  return Object.assign(tool, { [mcpToolMarker]: true as const });
}

const toolSettingKeys = [
  "policy",
  "tags",
  "readOnly",
  "idempotent",
  "timeoutMs",
  "maxOutputChars",
  "maxStoredOutputBytes",
  "approvalTtlMs",
  "rejectOptions",
  "endsRun",
  "visibleWhen",
] as const satisfies readonly (keyof TMcpToolSettings)[];

function pickToolSettings(server: TMcpToolSettings): TMcpToolSettings {
  return Object.fromEntries(toolSettingKeys.map((key) => [key, server[key]])) as TMcpToolSettings;
}

function withoutUndefined<TValue extends object>(value: TValue): TValue {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as TValue;
}

/**
 * The mounted server a tool name belongs to by its `<server>__` prefix, else undefined. A server's name
 * holds no `__` (mcpServerNamePattern), so the first `__` ends it, renamed tools included.
 */
export function mcpServerOfToolName(servers: TMcpServersSettings, name: string): string | undefined {
  const separator = name.indexOf("__");
  if (separator <= 0) return undefined;
  const server = name.slice(0, separator);
  return Object.hasOwn(servers, server) ? server : undefined;
}

/** The tags every tool of a server has (`mcp:<server>` and the server's own), for a tool whose list is gone. */
export function mcpServerTagsOf(servers: TMcpServersSettings, server: string): string[] {
  const settings = Object.hasOwn(servers, server) ? servers[server] : undefined;
  return [mcpServerTag(server), ...(settings?.tags ?? [])];
}
