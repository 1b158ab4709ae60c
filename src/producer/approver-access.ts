import type { TApproverAccess } from "../engine/index.js";
import { mcpServerOfToolName, mcpServerTagsOf } from "../gateway/index.js";
import { checkApprover, type IRuleTool, quorumOf } from "../policy/index.js";
import { noMcpConnection, pinnedMcpTools } from "../runtime/pinned-tools.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import type { IApproval } from "../store/index.js";

/**
 * What the gateway's approver rules say of this approver: how many distinct approvers the call needs, or
 * a refusal (TG_FORBIDDEN naming the rule, or the requester check) the approval machine answers once it
 * has checked that the approval is still pending. Read at decision time, so a changed rule applies to
 * approvals already pending.
 */
export async function approverAccess(
  runtime: ITollgateRuntime,
  approval: IApproval,
  approver: { approver: string; approverRoles?: readonly string[] | undefined },
): Promise<TApproverAccess> {
  const check = checkApprover(
    runtime.gateway.settings.approvals,
    await toolOfApproval(runtime, approval),
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
    await toolOfApproval(runtime, approval),
  );
  return required > 1 ? { ...approval, quorum: { required, approvals: [] } } : approval;
}

/**
 * The tool as the rules see it: its name and tags. An MCP tool's tags (`mcp:<server>`, the gateway's
 * settings') come from the run's pinned list, as the model saw the tool; a list that is gone still gives
 * its server's tags (by the name's `<server>__` prefix), so a rule on the server keeps guarding its calls.
 * A tool the gateway no longer has is matched by its name alone.
 */
async function toolOfApproval(runtime: ITollgateRuntime, approval: IApproval): Promise<IRuleTool> {
  const { gateway } = runtime;
  const own = gateway.catalogue.get(approval.toolName);
  if (own !== undefined) return { name: approval.toolName, tags: own.tags };
  const server = mcpServerOfToolName(gateway.settings.mcpServers, approval.toolName);
  if (server === undefined) return { name: approval.toolName };
  const pinned = await pinnedMcpTools(runtime, approval.toolListHash, noMcpConnection);
  const tool = pinned.find((candidate) => candidate.tool.name === approval.toolName)?.tool;
  return {
    name: approval.toolName,
    tags: tool?.tags ?? mcpServerTagsOf(gateway.settings.mcpServers, server),
  };
}
