import type { FastifyRequest } from "fastify";
import type { IApproval } from "../../contracts/index.js";
import { TollgateError } from "../../errors/index.js";
import { auditLog } from "../../observability/index.js";

/** Who decides, as the audit line names them: a token's principal, or the approver a link acts as. */
export interface IDecider {
  subject: string;
  tenant: string;
}

/**
 * A decision, audited whatever its outcome: the decided status (`partially-decided` for a vote that
 * leaves a quorum pending), or the error code that refused it with the rule that did.
 */
export async function auditedDecision(
  request: FastifyRequest,
  decider: IDecider,
  action: string,
  targetId: string,
  decide: () => Promise<IApproval>,
  extraDetail: Record<string, unknown> = {},
): Promise<IApproval> {
  const audit = (outcome: string, detail: Record<string, unknown> = {}) => {
    const merged = { ...extraDetail, ...detail };
    auditLog(request.log, {
      subject: decider.subject,
      tenant: decider.tenant,
      action,
      targetId,
      outcome,
      ...(Object.keys(merged).length > 0 ? { detail: merged } : {}),
    });
  };
  try {
    const approval = await decide();
    const quorum = approval.quorum;
    const votes = quorum ? { votes: quorum.approvals.length, required: quorum.required } : {};
    // A vote that does not complete a quorum leaves the approval pending: recorded as a partial decision.
    audit(approval.status === "pending" && quorum ? "partially-decided" : approval.status, votes);
    return approval;
  } catch (error) {
    const rule = TollgateError.isInstance(error)
      ? (error.details as { rule?: unknown } | undefined)?.rule
      : undefined;
    audit(TollgateError.isInstance(error) ? error.code : "error", typeof rule === "string" ? { rule } : {});
    throw error;
  }
}
