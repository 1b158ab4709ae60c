import type { IToolPolicyConfig, TAnyToolDef } from "../contracts/index.js";
import { describeFieldIssues, type IFieldIssue, TollgateError } from "../errors/index.js";
import type { TApprovalsConfig } from "../policy/index.js";

/**
 * An extra tool must be a tool of its own: one with the name of a default tool could never join a run
 * (`additionalTools` refuses default names), so it is a mistake in the definition, named by its index.
 */
export function checkExtraTools(tools: readonly TAnyToolDef[], extraTools: readonly TAnyToolDef[]): void {
  const defaultNames = new Set(tools.map((tool) => tool.name));
  const issues: IFieldIssue[] = [];
  extraTools.forEach((tool, index) => {
    if (defaultNames.has(tool?.name)) {
      issues.push({
        path: `extraTools.${index}`,
        message: `"${tool.name}" is already one of the gateway's default tools`,
      });
    }
  });
  throwIfAny(issues);
}

/**
 * The tools of MCP servers are known only once a worker lists them: a name with a mounted server's
 * `<server>__` prefix is taken as one of them, and the servers' tags (`mcp:<server>` and their settings')
 * are tags of the gateway.
 */
export interface IRemoteToolNames {
  isToolName(name: string): boolean;
  tags: readonly string[];
}

const noRemoteTools: IRemoteToolNames = { isToolName: () => false, tags: [] };

/**
 * Every name the policy uses must be a tool of the gateway (default or extra) or, where tags are allowed,
 * a tag of one: a misspelt name would otherwise hide a tool forever (`requires`), never ask for an
 * approval (`approvals`), or filter nothing (`allowTags`, `denyTags`). All wrong names are reported at
 * once, each with the path of its key.
 */
export function checkPolicyReferences(
  catalogueTools: readonly TAnyToolDef[],
  policy: IToolPolicyConfig,
  remote: IRemoteToolNames = noRemoteTools,
): void {
  const toolNames = new Set(catalogueTools.map((tool) => tool.name));
  const tags = new Set([...catalogueTools.flatMap((tool) => tool.tags ?? []), ...remote.tags]);
  const isTool = (name: string) => toolNames.has(name) || remote.isToolName(name);
  const issues: IFieldIssue[] = [];
  const expectTool = (name: string, path: string) => {
    if (!isTool(name)) issues.push({ path, message: `"${name}" is not a tool of the gateway` });
  };
  const expectTag = (tag: string, path: string) => {
    if (!tags.has(tag)) issues.push({ path, message: `"${tag}" is not a tag of any tool of the gateway` });
  };
  for (const [toolName, required] of Object.entries(policy.requires ?? {})) {
    expectTool(toolName, `policy.requires.${toolName}`);
    (required ?? []).forEach((name, index) => {
      expectTool(name, `policy.requires.${toolName}.${index}`);
    });
  }
  for (const [profile, { approvals }] of Object.entries(policy.profiles ?? {})) {
    approvals.forEach((name, index) => {
      if (!isTool(name) && !tags.has(name)) {
        issues.push({
          path: `policy.profiles.${profile}.approvals.${index}`,
          message: `"${name}" is neither a tool nor a tag of the gateway`,
        });
      }
    });
  }
  (policy.allowTags ?? []).forEach((tag, index) => {
    expectTag(tag, `policy.allowTags.${index}`);
  });
  (policy.denyTags ?? []).forEach((tag, index) => {
    expectTag(tag, `policy.denyTags.${index}`);
  });
  throwIfAny(issues);
}

/**
 * Every tool and tag an approver rule names must be one of the gateway's: a misspelt name would leave the
 * tool it meant to guard decidable by anyone, with no second approver. MCP tools count as the policy's
 * references do (a mounted server's `<server>__` prefix, its tags).
 */
export function checkApproverRuleReferences(
  catalogueTools: readonly TAnyToolDef[],
  approvals: TApprovalsConfig,
  remote: IRemoteToolNames = noRemoteTools,
): void {
  const catalogueNames = new Set(catalogueTools.map((tool) => tool.name));
  const toolNames = { has: (name: string) => catalogueNames.has(name) || remote.isToolName(name) };
  const tags = new Set([...catalogueTools.flatMap((tool) => tool.tags ?? []), ...remote.tags]);
  const issues: IFieldIssue[] = [];
  approvals.rules.forEach((rule, ruleIndex) => {
    (rule.tools ?? []).forEach((name, index) => {
      if (!toolNames.has(name)) {
        issues.push({
          path: `approvals.rules.${ruleIndex}.tools.${index}`,
          message: `"${name}" is not a tool of the gateway`,
        });
      }
    });
    (rule.tags ?? []).forEach((tag, index) => {
      if (!tags.has(tag)) {
        issues.push({
          path: `approvals.rules.${ruleIndex}.tags.${index}`,
          message: `"${tag}" is not a tag of any tool of the gateway`,
        });
      }
    });
  });
  throwIfAny(issues);
}

function throwIfAny(issues: IFieldIssue[]): void {
  if (issues.length === 0) return;
  throw new TollgateError(
    "TG_INVALID_GATEWAY",
    `The gateway definition names what it does not have: ${describeFieldIssues(issues)}.`,
    { issues },
  );
}
