import { TollgateError } from "../errors/index.js";
import { checkApprover, quorumOf } from "../policy/index.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import type { IApproval } from "../store/index.js";

/**
 * Refuses a decision the gateway's approver rules do not allow (TG_FORBIDDEN naming the rule, or the
 * requester check); returns how many distinct approvers the call needs. Read at decision time, so a
 * changed rule applies to approvals already pending.
 */
export function assertMayDecide(
  runtime: ITollgateRuntime,
  approval: IApproval,
  approver: { subject: string; roles: readonly string[] },
): number {
  const check = checkApprover(
    runtime.gateway.settings.approvals,
    toolOfApproval(runtime, approval),
    { createdBy: approval.createdBy, userId: approval.userContext.userId },
    approver,
  );
  if (check.allowed) return check.quorum;
  throw new TollgateError("TG_FORBIDDEN", check.message, {
    approvalId: approval.approvalId,
    rule: check.rule,
  });
}

/**
 * A pending approval of a tool that needs a quorum shows its progress from the start (no vote yet), so a
 * reviewer sees that a second approver will be needed before voting.
 */
export function withQuorumProgress(runtime: ITollgateRuntime, approval: IApproval): IApproval {
  if (approval.quorum !== undefined || approval.status !== "pending") return approval;
  const required = quorumOf(runtime.gateway.settings.approvals.rules, toolOfApproval(runtime, approval));
  return required > 1 ? { ...approval, quorum: { required, approvals: [] } } : approval;
}

function toolOfApproval(runtime: ITollgateRuntime, approval: IApproval) {
  // A tool the gateway no longer has is matched by its name alone.
  return { name: approval.toolName, tags: runtime.gateway.catalogue.get(approval.toolName)?.tags };
}
