import type { IApproval } from "../../store/index.js";
import { formatAge } from "./durations.js";
import { inputChangeLines, inputFields } from "./input-fields.js";
import { cell, formatDetails, formatTable, type IColumn, time } from "./text-table.js";
import type { IViewContext } from "./view-context.js";

/**
 * The columns of a page of approvals. The time column is the expiry of pending ones and the decision's
 * time of decided ones, and its header says which when the page holds one kind only (a header as long as
 * "expires / decided" would not fit beside an approval id on an 80-column terminal).
 */
function approvalColumns(approvals: readonly IApproval[], view: IViewContext): IColumn<IApproval>[] {
  const decided = approvals.filter((approval) => approval.decision !== undefined).length;
  const timeHeader = decided === 0 ? "expires" : decided === approvals.length ? "decided" : "expires/decided";
  return [
    { header: "approval", value: (approval) => approval.approvalId },
    { header: "tool", value: (approval) => approval.toolName },
    {
      header: "status",
      value: (approval) =>
        approval.decision?.approver !== undefined
          ? `${approval.status} by ${approval.decision.approver}`
          : approval.status,
    },
    { header: "user", value: (approval) => approval.userContext.userId, dropRank: 2 },
    { header: "requested", value: (approval) => formatAge(approval.requestedAt, view.now), dropRank: 1 },
    {
      header: timeHeader,
      value: (approval) => formatAge(approval.decision?.decidedAt ?? approval.expiresAt, view.now),
      dropRank: 3,
    },
  ];
}

/**
 * `approvals list` and `approvals export`: one approval a row, under it the input that would run (the
 * edit once one was made) as `key: value` fields cut to the width, and how to get the next page.
 */
export function formatApprovalTable(
  approvals: readonly IApproval[],
  view: IViewContext,
  nextCursor?: string,
): string[] {
  const lines =
    approvals.length === 0
      ? ["No approvals."]
      : formatTable(approvalColumns(approvals, view), approvals, {
          width: view.width,
          detail: (approval) => inputFields(approval.decision?.editedInput ?? approval.input),
        });
  return nextCursor !== undefined ? [...lines, "", `More: --cursor ${nextCursor}`] : lines;
}

/** `approvals get`, and what `approve` and `reject` decided. */
export function formatApproval(approval: IApproval, view: IViewContext): string[] {
  const { decision } = approval;
  const proposed = approval.inputs?.proposed ?? approval.input;
  const edit =
    decision?.editedInput !== undefined && approval.diff !== undefined
      ? inputChangeLines(approval.diff).join("; ")
      : undefined;
  return formatDetails(
    [
      ["Approval", approval.approvalId],
      ["Tool", approval.toolName],
      ["Status", approval.status],
      ["Run", approval.runId],
      ["User", approval.userContext.userId],
      ["Reason", approval.reason],
      ["Input", inputFields(proposed)],
      ["Input hash", approval.inputHash],
      [
        "Reject options",
        approval.rejectOptions?.map((option) => `${option.name} (${option.title})`).join(", "),
      ],
      ["Requested", `${time(approval.requestedAt)} (${formatAge(approval.requestedAt, view.now)})`],
      [
        "Expires",
        decision === undefined
          ? `${time(approval.expiresAt)} (${formatAge(approval.expiresAt, view.now)})`
          : undefined,
      ],
      ["Quorum", approval.quorum !== undefined ? cell(approval.quorum) : undefined],
      ["Decided", decision !== undefined ? time(decision.decidedAt) : undefined],
      ["Approver", decision?.approver],
      ["Edited input", decision?.editedInput !== undefined ? inputFields(decision.editedInput) : undefined],
      ["Edit", edit],
      ["Reject option", decision?.rejectOption?.name],
      ["Comment", decision?.comment],
      [
        "Executed input",
        approval.inputs?.executed !== undefined ? inputFields(approval.inputs.executed) : undefined,
      ],
      ["Rejection", decision?.reason ?? decision?.rejectionText],
      ["Outcome", approval.outcome !== undefined ? outcomeText(approval.outcome) : undefined],
    ],
    view.width,
  );
}

function outcomeText(outcome: NonNullable<IApproval["outcome"]>): string {
  if (outcome.ok) return "the call ran";
  return `the call failed (${[outcome.code, outcome.status].filter((part) => part !== undefined).join(", ")})`;
}
