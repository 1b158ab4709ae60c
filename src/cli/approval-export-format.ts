import type { IApproval } from "../store/index.js";

/**
 * The columns of `approvals export --format csv`, in order: one row per approval. `rejectOption` is the
 * name of the named reject option a rejection chose.
 */
export const approvalCsvColumns = [
  "approvalId",
  "runId",
  "threadId",
  "callId",
  "tenant",
  "toolName",
  "reason",
  "status",
  "userId",
  "createdBy",
  "requestedAt",
  "expiresAt",
  "decidedAt",
  "approver",
  "comment",
  "rejectOption",
  "input",
  "editedInput",
  "diff",
  "outcomeOk",
  "outcomeStatus",
  "outcomeCode",
  "outcomeFinishedAt",
] as const;

type TCell = string | number | boolean | undefined;

/** One approval as CSV cells: times as ISO 8601 (UTC), inputs and the diff as JSON. */
function cellsOf(approval: IApproval): Record<(typeof approvalCsvColumns)[number], TCell> {
  const { decision, outcome } = approval;
  return {
    approvalId: approval.approvalId,
    runId: approval.runId,
    threadId: approval.threadId,
    callId: approval.callId,
    tenant: approval.tenant ?? "default",
    toolName: approval.toolName,
    reason: approval.reason,
    status: approval.status,
    userId: approval.userContext.userId,
    createdBy: approval.createdBy,
    requestedAt: isoOf(approval.requestedAt),
    expiresAt: isoOf(approval.expiresAt),
    decidedAt: isoOf(decision?.decidedAt),
    approver: decision?.approver,
    // An approval's note, or a reject's reason (the model read it after the option's text, if any).
    comment: decision?.comment,
    rejectOption: decision?.rejectOption?.name,
    input: JSON.stringify(approval.input),
    editedInput: decision?.editedInput !== undefined ? JSON.stringify(decision.editedInput) : undefined,
    diff: approval.diff !== undefined ? JSON.stringify(approval.diff) : undefined,
    outcomeOk: outcome?.ok,
    outcomeStatus: outcome?.status,
    outcomeCode: outcome?.code,
    outcomeFinishedAt: isoOf(outcome?.finishedAt),
  };
}

export function csvHeader(): string {
  return approvalCsvColumns.join(",");
}

export function csvRow(approval: IApproval): string {
  const cells = cellsOf(approval);
  return approvalCsvColumns.map((column) => csvCell(cells[column])).join(",");
}

/**
 * RFC 4180 quoting. A text cell that a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, a tab
 * or a carriage return first) gets a leading `'`: inputs come from a model and from users, and an
 * export opened by an auditor must not run what they wrote.
 */
export function csvCell(value: TCell): string {
  if (value === undefined) return "";
  if (typeof value !== "string") return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function isoOf(milliseconds: number | undefined): string | undefined {
  return milliseconds === undefined ? undefined : new Date(milliseconds).toISOString();
}

/** `--since`/`--until`: an ISO 8601 date or date-time, or a time ago (`90s`, `30m`, `12h`, `7d`, `2w`). */
export function parseInstant(text: string, now: number): number | undefined {
  const relative = /^(\d+)(s|m|h|d|w)$/.exec(text.trim());
  if (relative) {
    const unitMs = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[
      relative[2] as "s" | "m" | "h" | "d" | "w"
    ];
    return now - Number(relative[1]) * unitMs;
  }
  if (!/^\d{4}-\d{2}-\d{2}/.test(text.trim())) return undefined;
  const parsed = Date.parse(text);
  return Number.isFinite(parsed) ? parsed : undefined;
}
