import type { IToolVisibilityArgs, TAnyToolDef } from "../contracts/index.js";
import type { IResolvedPolicyConfig } from "./policy-config.js";

/**
 * Whether `tool` is offered at this step (design decision D89: visibleWhen): its visibleWhen, the configured
 * `requires`, and the tag filters must all let it through. A visibleWhen that throws or answers anything but
 * `true` hides it: a hidden tool is the safe side of a bug.
 */
export function isToolVisible(
  config: IResolvedPolicyConfig,
  tool: TAnyToolDef,
  args: IToolVisibilityArgs,
): boolean {
  return (
    passesTagFilters(config, tool.tags ?? []) &&
    passesRequires(config, tool.name, args.executed) &&
    passesVisibleWhen(tool, args)
  );
}

function passesTagFilters(config: IResolvedPolicyConfig, tags: readonly string[]): boolean {
  if (tags.some((tag) => config.denyTags.has(tag))) {
    return false;
  }
  const { allowTags } = config;
  return allowTags === undefined || tags.some((tag) => allowTags.has(tag));
}

function passesRequires(
  config: IResolvedPolicyConfig,
  toolName: string,
  executed: readonly string[],
): boolean {
  const required = config.requires.get(toolName) ?? [];
  return required.every((name) => executed.includes(name));
}

function passesVisibleWhen(tool: TAnyToolDef, args: IToolVisibilityArgs): boolean {
  if (tool.visibleWhen === undefined) {
    return true;
  }
  try {
    // A copy, so a handler cannot change what the next tool is asked with.
    return tool.visibleWhen({ stepIndex: args.stepIndex, executed: [...args.executed] }) === true;
  } catch {
    return false;
  }
}
