import type { IApproval } from "../../store/index.js";
import { cell, formatDetails, formatTable, type IColumn, time } from "./text-table.js";

const approvalColumns: IColumn<IApproval>[] = [
  { header: "approval", value: (approval) => approval.approvalId },
  { header: "tool", value: (approval) => approval.toolName },
  { header: "status", value: (approval) => approval.status },
  { header: "user", value: (approval) => approval.userContext.userId },
  { header: "requested", value: (approval) => time(approval.requestedAt) },
  {
    header: "expires / decided",
    value: (approval) =>
      approval.decision !== undefined
        ? `${time(approval.decision.decidedAt)}${approval.decision.approver ? ` by ${approval.decision.approver}` : ""}`
        : time(approval.expiresAt),
  },
  { header: "input", value: (approval) => cell(approval.decision?.editedInput ?? approval.input, 50) },
];

/** `approvals list` and `approvals export`: one approval a row, and how to get the next page. */
export function formatApprovalTable(approvals: readonly IApproval[], nextCursor?: string): string[] {
  const lines = approvals.length === 0 ? ["No approvals."] : formatTable(approvalColumns, approvals);
  return nextCursor !== undefined ? [...lines, "", `More: --cursor ${nextCursor}`] : lines;
}

/** `approvals get`, and what `approve` and `reject` decided. */
export function formatApproval(approval: IApproval): string[] {
  const { decision } = approval;
  return formatDetails([
    ["Approval", approval.approvalId],
    ["Tool", approval.toolName],
    ["Status", approval.status],
    ["Run", approval.runId],
    ["User", approval.userContext.userId],
    ["Reason", approval.reason],
    ["Input", cell(approval.input, 200)],
    ["Input hash", approval.inputHash],
    [
      "Reject options",
      approval.rejectOptions?.map((option) => `${option.name} (${option.title})`).join(", "),
    ],
    ["Requested", time(approval.requestedAt)],
    ["Expires", decision === undefined ? time(approval.expiresAt) : undefined],
    ["Quorum", approval.quorum !== undefined ? cell(approval.quorum, 120) : undefined],
    ["Decided", decision !== undefined ? time(decision.decidedAt) : undefined],
    ["Approver", decision?.approver],
    ["Edited input", decision?.editedInput !== undefined ? cell(decision.editedInput, 200) : undefined],
    ["Reject option", decision?.rejectOption?.name],
    ["Comment", decision?.comment],
    [
      "Executed input",
      approval.inputs?.executed !== undefined ? cell(approval.inputs.executed, 200) : undefined,
    ],
    ["Rejection", decision?.reason ?? decision?.rejectionText],
    ["Outcome", approval.outcome !== undefined ? outcomeText(approval.outcome) : undefined],
  ]);
}

function outcomeText(outcome: NonNullable<IApproval["outcome"]>): string {
  if (outcome.ok) return "the call ran";
  return `the call failed (${[outcome.code, outcome.status].filter((part) => part !== undefined).join(", ")})`;
}
