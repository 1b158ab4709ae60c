import type { IApproval } from "../contracts/index.js";
import type { IApprovalRefusal } from "./approval-commands.js";

/** The approval is no longer pending (or past its expiry, `expired`), or gone (`missing`). */
export function refusalOfStatus(approvalId: string, status: string): IApprovalRefusal {
  if (status === "missing") {
    return {
      code: "TG_APPROVAL_NOT_FOUND",
      message: `No approval has id ${approvalId}.`,
      details: { approvalId },
    };
  }
  return {
    code: "TG_APPROVAL_DECIDED",
    message: `Approval ${approvalId} is already ${status}.`,
    details: { approvalId, status },
  };
}

/** The approver decided on a screen that showed another input than the one the approval acts on now. */
export function staleInput(approvalId: string, current: string | undefined, sent: string): IApprovalRefusal {
  return {
    code: "TG_APPROVAL_STALE",
    message:
      `Approval ${approvalId} now acts on another input than the one this decision was made on ` +
      "(an approver edited it since): review the current input and decide again.",
    details: { approvalId, inputHash: current, sentInputHash: sent },
  };
}

/** A reject option the approval does not offer: 422 naming the ones it does. */
export function unknownRejectOption(
  approval: Pick<IApproval, "approvalId" | "toolName" | "rejectOptions">,
  name: string,
): IApprovalRefusal {
  const options = approval.rejectOptions ?? [];
  const known = options.map((option) => `"${option.name}"`).join(", ");
  const message =
    options.length === 0
      ? `Approval ${approval.approvalId} (tool "${approval.toolName}") offers no reject options; send a reason only.`
      : `Approval ${approval.approvalId} (tool "${approval.toolName}") has no reject option "${name}"; known options: ${known}.`;
  return {
    code: "TG_INVALID_REQUEST",
    message: `Invalid request: option: ${message}`,
    details: { issues: [{ path: "option", message }], options: options.map((option) => option.name) },
  };
}

export function alreadyVoted(approvalId: string, approver: string, required: number, counted: number) {
  return {
    code: "TG_APPROVAL_ALREADY_VOTED",
    message:
      `"${approver}" already approved approval ${approvalId}: it needs ${required} distinct approvers ` +
      `(${counted} so far).`,
    details: { approvalId, required, approvals: counted },
  } satisfies IApprovalRefusal;
}

export function linkUsed(approvalId: string): IApprovalRefusal {
  return {
    code: "TG_LINK_USED",
    message: "This link was already used (it works once).",
    details: { approvalId },
  };
}
