import { z } from "zod";
import type { IToolPolicyConfig } from "../contracts/index.js";
import {
  describeFieldIssues,
  joinKeyPath,
  TollgateError,
  toConfigIssues,
  unknownKeysErrorMap,
} from "../errors/index.js";

const toolPolicyConfigSchema = z.strictObject({
  requires: z.record(z.string(), z.array(z.string())).optional(),
  profiles: z.record(z.string(), z.strictObject({ approvals: z.array(z.string()) })).optional(),
  allowTags: z.array(z.string()).optional(),
  denyTags: z.array(z.string()).optional(),
});

/**
 * The policy configuration, checked once and held in Maps: a tool named `constructor` or a profile named
 * `__proto__` must find its own entry or none, never something inherited from Object.prototype.
 */
export interface IResolvedPolicyConfig {
  requires: ReadonlyMap<string, readonly string[]>;
  approvalsByProfile: ReadonlyMap<string, ReadonlySet<string>>;
  /** undefined = no allow filter; an empty set offers nothing (the filter is set, and nothing passes it). */
  allowTags: ReadonlySet<string> | undefined;
  denyTags: ReadonlySet<string>;
}

/**
 * Validates the shape (unknown keys are typos, so they fail, naming the nearest known key) and resolves
 * it; TG_INVALID_GATEWAY otherwise, its paths from the gateway definition (`policy.requires.refund`).
 */
export function resolvePolicyConfig(config: IToolPolicyConfig): IResolvedPolicyConfig {
  const parsed = toolPolicyConfigSchema.safeParse(config, { error: unknownKeysErrorMap() });
  if (!parsed.success) {
    const issues = toConfigIssues(parsed.error).map((issue) => ({
      ...issue,
      path: joinKeyPath("policy", issue.path),
    }));
    throw new TollgateError(
      "TG_INVALID_GATEWAY",
      `The tool policy configuration is invalid: ${describeFieldIssues(issues)}.`,
      { issues },
    );
  }
  const { requires = {}, profiles = {}, allowTags, denyTags = [] } = parsed.data;
  return {
    requires: new Map(Object.entries(requires)),
    approvalsByProfile: new Map(
      Object.entries(profiles).map(([profile, { approvals }]) => [profile, new Set(approvals)]),
    ),
    allowTags: allowTags === undefined ? undefined : new Set(allowTags),
    denyTags: new Set(denyTags),
  };
}
