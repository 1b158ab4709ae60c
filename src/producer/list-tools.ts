import type { TAnyToolDef, TMcpPublishedTools, TToolPolicyKind } from "../contracts/index.js";
import { type IGateway, mcpToolDefsOf } from "../gateway/index.js";
import { toModelTools } from "../model/index.js";
import { noMcpConnection } from "../runtime/pinned-tools.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";

/** One tool as a client needs it to write a run request (what `GET /v1/tools` shows). */
export interface IListedTool {
  name: string;
  description: string;
  /** The JSON Schema the model is offered, so a client sees exactly what the model must send. */
  inputSchema: Record<string, unknown>;
  tags: string[];
  policyKind: TToolPolicyKind;
  mayNeedApproval: boolean;
  /** The tool changes nothing outside itself (`readOnly`): a rerun or fork repeats its calls freely. */
  readOnly: boolean;
  /** Calling it again with the same input has no further effect (`idempotent`). */
  idempotent: boolean;
  /** Offered only to runs that name it in additionalTools (the gateway's extraTools). */
  extra: boolean;
  /** The MCP server serving it, for an MCP tool. */
  mcpServer?: string;
}

/**
 * A mounted MCP server as the API knows it: `listed` when a worker published its tools within the last
 * half minute (with the list's hash, when and how many), `not_listed` when none did (no worker running,
 * none reaching the server, or none started since it came up).
 */
export type TListedMcpServer =
  | { server: string; status: "listed"; toolListHash: string; publishedAt: number; tools: number }
  | { server: string; status: "not_listed" };

export interface IToolListing {
  tools: IListedTool[];
  mcpServers: TListedMcpServer[];
}

/** The gateway's own tools' part of the listing: frozen with the gateway, so computed once. */
const gatewayListings = new WeakMap<IGateway, IListedTool[]>();
/** An MCP server's part, per published list: a hash names one content, so it never goes stale. */
const mcpListings = new WeakMap<IGateway, Map<string, IListedTool[]>>();
const maxMcpListingsKept = 64;

/**
 * Every tool a run may be offered: the gateway's (default and extra), then each mounted MCP server's
 * tools as the workers published them (this process holds no MCP connection), and each server's status.
 */
export async function listTools(runtime: ITollgateRuntime): Promise<IToolListing> {
  const { gateway } = runtime;
  const servers = Object.keys(gateway.settings.mcpServers);
  const published = servers.length === 0 ? new Map() : await runtime.mcpTools.read(servers);
  const mcpTools = servers.flatMap((server) => {
    const list = published.get(server);
    return list === undefined ? [] : mcpListingOf(gateway, list);
  });
  return {
    tools: [...gatewayListingOf(gateway), ...mcpTools],
    mcpServers: servers.map((server): TListedMcpServer => {
      const list = published.get(server);
      return list === undefined
        ? { server, status: "not_listed" }
        : {
            server,
            status: "listed",
            toolListHash: list.toolListHash,
            publishedAt: list.publishedAt,
            tools: list.tools.length,
          };
    }),
  };
}

function gatewayListingOf(gateway: IGateway): IListedTool[] {
  let listing = gatewayListings.get(gateway);
  if (listing === undefined) {
    const tools = gateway.catalogue.list();
    listing = listedToolsOf(gateway, tools, (tool) => ({ extra: gateway.extraToolNames.has(tool.name) }));
    gatewayListings.set(gateway, listing);
  }
  return listing;
}

function mcpListingOf(gateway: IGateway, list: TMcpPublishedTools): IListedTool[] {
  let byHash = mcpListings.get(gateway);
  if (byHash === undefined) {
    byHash = new Map();
    mcpListings.set(gateway, byHash);
  }
  const key = `${list.server}:${list.toolListHash}`;
  let listing = byHash.get(key);
  if (listing === undefined) {
    const pinned = mcpToolDefsOf(
      gateway.settings.mcpServers,
      { schemaVersion: 1, tools: list.tools },
      noMcpConnection,
    );
    listing = listedToolsOf(
      gateway,
      pinned.map(({ tool }) => tool),
      () => ({ extra: false, mcpServer: list.server }),
    );
    byHash.set(key, listing);
    if (byHash.size > maxMcpListingsKept) byHash.delete(byHash.keys().next().value as string);
  }
  return listing;
}

function listedToolsOf(
  gateway: IGateway,
  tools: readonly TAnyToolDef[],
  more: (tool: TAnyToolDef) => Pick<IListedTool, "extra" | "mcpServer">,
): IListedTool[] {
  const modelTools = toModelTools(tools);
  return tools.map((tool, index) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: modelTools[index]?.function.parameters ?? {},
    tags: tool.tags ?? [],
    policyKind: gateway.policy.policyKind(tool),
    mayNeedApproval: gateway.policy.mayNeedApproval(tool),
    readOnly: tool.readOnly === true,
    idempotent: tool.idempotent === true,
    ...more(tool),
  }));
}
