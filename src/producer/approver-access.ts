import type { TApproverAccess } from "../engine/index.js";
import { checkApprover, quorumOf } from "../policy/index.js";
import { ruleToolOfApproval } from "../runtime/approval-rule-tool.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import type { IApproval } from "../store/index.js";

/** Who would decide: the subject recorded as the approver, and every role it holds. */
export interface IApproverIdentity {
  approver: string;
  approverRoles?: readonly string[] | undefined;
}

/** Whether an approver may decide an approval; a refusal names the rule (or the requester check) and why. */
export interface IDecisionAccess {
  allowed: boolean;
  /** The rule that refuses (`requester-is-never-approver` for the requester check). */
  rule?: string;
  /** Why, as a refused decision's error says it. */
  message?: string;
}

/** The engine's answer as a caller reads it. */
export function decisionAccessOf(access: TApproverAccess): IDecisionAccess {
  if (access.allowed) return { allowed: true };
  const rule = access.refusal.details?.rule;
  return {
    allowed: false,
    ...(typeof rule === "string" ? { rule } : {}),
    message: access.refusal.message,
  };
}

/**
 * What the gateway's approver rules say of this approver: how many distinct approvers the call needs, or
 * a refusal (TG_FORBIDDEN naming the rule, or the requester check) the approval machine answers once it
 * has checked that the approval is still pending. Read at decision time, so a changed rule applies to
 * approvals already pending.
 */
export async function approverAccess(
  runtime: ITollgateRuntime,
  approval: IApproval,
  approver: IApproverIdentity,
): Promise<TApproverAccess> {
  const check = checkApprover(
    runtime.gateway.settings.approvals,
    await ruleToolOfApproval(runtime, approval),
    { createdBy: approval.createdBy, userId: approval.userContext.userId },
    { subject: approver.approver, roles: approver.approverRoles ?? [] },
  );
  if (check.allowed) return { allowed: true, quorum: check.quorum };
  return {
    allowed: false,
    refusal: {
      code: "TG_FORBIDDEN",
      message: check.message,
      details: { approvalId: approval.approvalId, rule: check.rule },
    },
  };
}

/**
 * A pending approval of a tool that needs a quorum shows its progress from the start (no vote yet), so a
 * reviewer sees that a second approver will be needed before voting.
 */
export async function withQuorumProgress(runtime: ITollgateRuntime, approval: IApproval): Promise<IApproval> {
  if (approval.quorum !== undefined || approval.status !== "pending") return approval;
  if (runtime.gateway.settings.approvals.rules.length === 0) return approval;
  const required = quorumOf(
    runtime.gateway.settings.approvals.rules,
    await ruleToolOfApproval(runtime, approval),
  );
  return required > 1 ? { ...approval, quorum: { required, approvals: [] } } : approval;
}
