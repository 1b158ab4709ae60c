import type { IToolErrorReport, IToolPolicyConfig, TAnyToolDef } from "../contracts/index.js";
import { TollgateError, toFieldIssues } from "../errors/index.js";
import { ToolPolicy } from "../policy/index.js";
import { ToolRegistry } from "../tools/index.js";
import {
  gatewaySettingsSchema,
  type TGatewaySettings,
  type TGatewaySettingsInput,
} from "./gateway-options.js";

export interface IGatewayDefinition extends TGatewaySettingsInput {
  /** The tools offered by default. */
  tools: TAnyToolDef[];
  /** Tools offered only to runs that name them in `additionalTools`. */
  extraTools?: TAnyToolDef[];
  policy?: IToolPolicyConfig;
  onToolError?: (report: IToolErrorReport) => void | Promise<void>;
}

/** A validated gateway: what workers and the API load. Frozen. */
export interface IGateway {
  readonly settings: Readonly<TGatewaySettings>;
  /** The default tools. */
  readonly registry: ToolRegistry;
  /** Every tool, default and extra: for building a run's registry and for the tool catalogue. */
  readonly catalogue: ToolRegistry;
  readonly extraToolNames: ReadonlySet<string>;
  readonly policy: ToolPolicy;
  readonly definition: Readonly<IGatewayDefinition>;
}

const gatewayBrand = Symbol.for("tollgate.gateway");

/**
 * Validates a gateway definition once and builds its registry and policy. The module users write
 * default-exports the result; workers and the API load it.
 */
export function defineGateway(definition: IGatewayDefinition): IGateway {
  const { tools, extraTools = [], policy, onToolError, ...rest } = definition;
  const parsed = gatewaySettingsSchema.safeParse(rest);
  if (!parsed.success) {
    throw new TollgateError("TG_INVALID_GATEWAY", "The gateway definition is invalid.", {
      issues: toFieldIssues(parsed.error),
    });
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
  const catalogue = new ToolRegistry({ ...registryConfig, tools: [...tools, ...extraTools] });
  const gateway: IGateway & { [gatewayBrand]: true } = {
    settings: Object.freeze(settings),
    registry,
    catalogue,
    extraToolNames: new Set(extraTools.map((tool) => tool.name)),
    policy: new ToolPolicy(policy ?? {}),
    definition: Object.freeze({ ...definition }),
    [gatewayBrand]: true,
  };
  return Object.freeze(gateway);
}

/** True for what defineGateway returned (a module's default export is checked with it). */
export function isGateway(value: unknown): value is IGateway {
  return (
    typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[gatewayBrand] === true
  );
}
