import type { TApprovalsConfig, TApproverRule } from "./approver-rules-config.js";

/** The tool of a parked call, as the rules see it. */
export interface IRuleTool {
  name: string;
  tags?: readonly string[] | undefined;
}

/** Who asked for the call: the subject that created the run (absent for runs a library made) and its user. */
export interface IRequester {
  createdBy?: string | undefined;
  userId: string;
}

/** Who tries to decide: a token's subject and every role it holds (API roles and custom ones). */
export interface IApproverIdentity {
  subject: string;
  roles: readonly string[];
}

/** The name a refusal of the requester check carries where a rule's name would be. */
export const requesterRuleName = "requester-is-never-approver";

export type TApproverCheck =
  | { allowed: true; quorum: number }
  | { allowed: false; rule: string; message: string };

/** Whether a rule governs a tool: by name or by a tag; a rule naming neither governs every tool. */
export function ruleMatches(rule: TApproverRule, tool: IRuleTool): boolean {
  if (rule.tools === undefined && rule.tags === undefined) return true;
  if (rule.tools?.includes(tool.name)) return true;
  const tags = tool.tags ?? [];
  return rule.tags?.some((tag) => tags.includes(tag)) ?? false;
}

/** The rules that govern a tool, in the order they were written. */
export function rulesForTool(rules: readonly TApproverRule[], tool: IRuleTool): TApproverRule[] {
  return rules.filter((rule) => ruleMatches(rule, tool));
}

/** How many distinct approvers a tool's calls need: the largest quorum of its rules, else 1. */
export function quorumOf(rules: readonly TApproverRule[], tool: IRuleTool): number {
  return rulesForTool(rules, tool).reduce((largest, rule) => Math.max(largest, rule.quorum ?? 1), 1);
}

/**
 * Whether this approver may decide a call of this tool: never the requester (unless the gateway allows
 * it), and a listed subject or role of every rule governing the tool. The first refusal is named, so the
 * error says which rule to look at. Roles are matched as written: `admin` satisfies a rule only when the
 * rule lists it, since a rule exists to narrow who decides.
 */
export function checkApprover(
  config: TApprovalsConfig,
  tool: IRuleTool,
  requester: IRequester,
  approver: IApproverIdentity,
): TApproverCheck {
  if (!config.requesterMayApprove) {
    const why =
      requester.createdBy !== undefined && requester.createdBy === approver.subject
        ? "created this run"
        : requester.userId === approver.subject
          ? "is this run's user"
          : undefined;
    if (why !== undefined) {
      return {
        allowed: false,
        rule: requesterRuleName,
        message: `requester is never approver: "${approver.subject}" ${why}, so another approver must decide.`,
      };
    }
  }
  const rules = rulesForTool(config.rules, tool);
  for (const rule of rules) {
    if (rule.approvers === undefined || isListedApprover(rule.approvers, approver)) continue;
    return {
      allowed: false,
      rule: rule.name,
      message:
        `approval rule "${rule.name}": "${approver.subject}" is not one of its approvers ` +
        "(neither a subject it lists nor a holder of a role it lists).",
    };
  }
  return {
    allowed: true,
    quorum: rules.reduce((largest, rule) => Math.max(largest, rule.quorum ?? 1), 1),
  };
}

function isListedApprover(
  approvers: NonNullable<TApproverRule["approvers"]>,
  approver: IApproverIdentity,
): boolean {
  if (approvers.subjects?.includes(approver.subject)) return true;
  return approvers.roles?.some((role) => approver.roles.includes(role)) ?? false;
}
