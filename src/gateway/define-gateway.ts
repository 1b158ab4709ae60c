import type { IToolDef, IToolErrorReport, IToolPolicyConfig } from "../contracts/index.js";
import {
  describeFieldIssues,
  type IFieldIssue,
  TollgateError,
  toConfigIssues,
  unknownKeysErrorMap,
} from "../errors/index.js";
import { ToolPolicy } from "../policy/index.js";
import { ToolRegistry, toolKeyIssues } from "../tools/index.js";
import {
  gatewaySettingsSchema,
  type TGatewaySettings,
  type TGatewaySettingsInput,
} from "./gateway-options.js";
import {
  checkApproverRuleReferences,
  checkExtraTools,
  checkPolicyReferences,
  type IRemoteToolNames,
} from "./gateway-references.js";
import { checkHttpToolHosts } from "./http-tool-hosts.js";
import { mcpServerTag } from "./mcp-tools.js";
import { checkNotificationReferences } from "./notification-references.js";

/**
 * What a gateway module passes to `defineGateway`. `TToolName` is the union of the names of `tools` and
 * `extraTools`, inferred from tools written with `defineTool`; the policy may name only those.
 */
export interface IGatewayDefinition<TToolName extends string = string> extends TGatewaySettingsInput {
  /** The tools offered by default. */
  // biome-ignore lint/suspicious/noExplicitAny: any input and output, as TAnyToolDef (see there).
  tools: IToolDef<any, any, TToolName>[];
  /** Tools offered only to runs that name them in `additionalTools`. */
  // biome-ignore lint/suspicious/noExplicitAny: any input and output, as TAnyToolDef (see there).
  extraTools?: IToolDef<any, any, TToolName>[];
  /** NoInfer: the names come from the tools, so a misspelt name here is an error, not a new name. */
  policy?: IToolPolicyConfig<NoInfer<TToolName>>;
  onToolError?: (report: IToolErrorReport) => void | Promise<void>;
}

/**
 * A validated gateway: what workers and the API load. Frozen. `TToolName` carries the tool names to
 * `GatewayClient`, so a request naming a tool the gateway lacks fails to compile.
 */
export interface IGateway<TToolName extends string = string> {
  readonly settings: Readonly<TGatewaySettings>;
  /** The default tools. */
  readonly registry: ToolRegistry;
  /** Every tool, default and extra: for building a run's registry and for the tool catalogue. */
  readonly catalogue: ToolRegistry;
  readonly extraToolNames: ReadonlySet<string>;
  readonly policy: ToolPolicy;
  readonly definition: Readonly<IGatewayDefinition<TToolName>>;
}

const gatewayBrand = Symbol.for("tollgate.gateway");

/** The keys of a definition that are not settings: taken apart before the settings are parsed. */
const definitionOnlyKeys = [
  "tools",
  "extraTools",
  "policy",
  "onToolError",
] as const satisfies readonly Exclude<keyof IGatewayDefinition, keyof TGatewaySettingsInput>[];

/**
 * Validates a gateway definition once and builds its registry and policy. The module users write
 * default-exports the result; workers and the API load it. Every name the policy and `extraTools` use
 * must be a tool (or a tag) of the gateway, and every key of the definition, its settings and its tools
 * must be a known one (a typo is refused with the nearest known key): TG_INVALID_GATEWAY naming the key
 * otherwise.
 */
export function defineGateway<TToolName extends string = string>(
  definition: IGatewayDefinition<TToolName>,
): IGateway<TToolName> {
  const { tools, extraTools = [], policy, onToolError, ...rest } = definition;
  const parsed = gatewaySettingsSchema.safeParse(rest, { error: unknownKeysErrorMap(definitionOnlyKeys) });
  const issues: IFieldIssue[] = [
    ...(parsed.success ? [] : toConfigIssues(parsed.error)),
    ...(Array.isArray(tools) ? toolKeyIssues(tools, "tools") : []),
    ...(Array.isArray(extraTools) ? toolKeyIssues(extraTools, "extraTools") : []),
  ];
  if (!parsed.success || issues.length > 0) {
    throw new TollgateError(
      "TG_INVALID_GATEWAY",
      `The gateway definition is invalid: ${describeFieldIssues(issues)}.`,
      { issues },
    );
  }
  const settings = parsed.data;
  const registryConfig = {
    maxOutputChars: settings.maxOutputChars,
    toolTimeoutMs: settings.toolTimeoutMs,
    maxStoredOutputBytes: settings.maxStoredOutputBytes,
    isolation: settings.isolation,
    ...(onToolError ? { onToolError } : {}),
  };
  const registry = new ToolRegistry({ ...registryConfig, tools });
  const toolPolicy = new ToolPolicy(policy ?? {});
  checkExtraTools(tools, extraTools);
  const catalogue = new ToolRegistry({ ...registryConfig, tools: [...tools, ...extraTools] });
  const remoteTools = remoteToolNamesOf(settings.mcpServers);
  checkPolicyReferences(catalogue.list(), policy ?? {}, remoteTools);
  checkNotificationReferences(catalogue.list(), settings.notifications, remoteTools);
  checkApproverRuleReferences(catalogue.list(), settings.approvals, remoteTools);
  checkHttpToolHosts(catalogue.list(), settings.httpTools);
  const gateway: IGateway<TToolName> & { [gatewayBrand]: true } = {
    settings: Object.freeze(settings),
    registry,
    catalogue,
    extraToolNames: new Set(extraTools.map((tool) => tool.name)),
    policy: toolPolicy,
    definition: Object.freeze({ ...definition }),
    [gatewayBrand]: true,
  };
  return Object.freeze(gateway);
}

/** The names and tags the gateway's MCP servers' tools may have, for the policy's references. */
function remoteToolNamesOf(servers: TGatewaySettings["mcpServers"]): IRemoteToolNames {
  const prefixes = Object.keys(servers).map((server) => `${server}__`);
  const tags = Object.entries(servers).flatMap(([server, settings]) => [
    mcpServerTag(server),
    ...(settings.tags ?? []),
    ...Object.values(settings.tools).flatMap((tool) => tool.tags ?? []),
  ]);
  return { isToolName: (name) => prefixes.some((prefix) => name.startsWith(prefix)), tags };
}

/** True for what defineGateway returned (a module's default export is checked with it). */
export function isGateway(value: unknown): value is IGateway {
  return (
    typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[gatewayBrand] === true
  );
}
