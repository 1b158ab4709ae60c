import { parseEnv } from "../../config/env.js";
import type { IApproval, TApprovalListStatus } from "../../store/index.js";
import { approvalListStatuses } from "../../store/index.js";
import { csvHeader, csvRow, parseInstant } from "../approval-export-format.js";
import { UsageError } from "../cli-errors.js";
import type { ICliIo } from "../cli-io.js";
import type { ICommand } from "../command.js";
import { defineCommand } from "../define-command.js";
import { requiredFlag } from "../flag-values.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatApprovalTable } from "../output/approval-views.js";
import type { TOutputFormat } from "../output/output-format.js";

/** The largest page the API gives: an export reads as few pages as it can. */
const pageSize = 1000;

type TExportFormat = "jsonl" | "csv" | "table";

export const approvalsExportCommand: ICommand = defineCommand({
  path: "approvals export",
  summary: "export the decision history for auditors (JSON lines or CSV)",
  usage: `--since <when> [--until <when>] [--format jsonl|csv|table]
                                [--status <status>] [--tool <name>] [--user <userId>]
                                [--approver <subject>] [--tenant <name>]`,
  description: `Prints every approval that matches, page after page of GET /v1/approvals (TOLLGATE_URL, TOLLGATE_TOKEN),
newest decision first: one JSON object per line, CSV with a header row (times in ISO 8601 UTC, the
inputs and the diff as JSON), or a table. Without --format: a table on a terminal, JSON lines when
piped or redirected (--json and --output json ask for JSON lines, --output table for a table).
Decided approvals are kept for TOLLGATE_APPROVAL_RETENTION_MS (90 days).`,
  flags: {
    since: {
      type: "string",
      value: "<when>",
      help: "from this time (decidedAt; requestedAt for pending): ISO 8601, or ago: 90s 30m 12h 7d 2w",
    },
    until: { type: "string", value: "<when>", help: "up to this time (same forms); default now" },
    format: {
      type: "string",
      value: "<format>",
      help: "jsonl, csv or table (default: table on a terminal, jsonl otherwise)",
    },
    status: {
      type: "string",
      value: "<status>",
      help: "decided (default), approved, rejected, refused, expired, cancelled or pending",
    },
    tool: { type: "string", value: "<name>", help: "only calls of this tool" },
    user: { type: "string", value: "<userId>", help: "only calls made for this user" },
    approver: { type: "string", value: "<subject>", help: "only decisions of this approver" },
    tenant: { type: "string", value: "<name>", help: "only this tenant's (a token of every tenant)" },
  },
  formats: "a table, or JSON lines",
  async run({ io, values, output }) {
    const now = Date.now();
    const format = exportFormatOf(values.format, output.asked, io);
    const since = instantFlag("since", requiredFlag(approvalsExportCommand, "since", values.since), now);
    const until = values.until !== undefined ? instantFlag("until", values.until, now) : undefined;
    const status = (values.status ?? "decided") as TApprovalListStatus;
    if (!approvalListStatuses.includes(status)) {
      throw new UsageError(
        `--status must be one of ${approvalListStatuses.join(", ")}, got "${values.status}"`,
        approvalsExportCommand.path,
      );
    }
    const query = new URLSearchParams({ status, since: String(since), limit: String(pageSize) });
    if (until !== undefined) query.set("until", String(until));
    if (values.tool !== undefined) query.set("tool", values.tool);
    if (values.user !== undefined) query.set("userId", values.user);
    if (values.approver !== undefined) query.set("approver", values.approver);
    if (values.tenant !== undefined) query.set("tenant", values.tenant);
    const client = apiClientFromEnv(parseEnv(io.env));
    if (format === "csv") io.printLine(csvHeader());
    // A table's columns are as wide as their widest cell: it is printed once every page was read.
    const tableRows: IApproval[] = [];
    let cursor: string | undefined;
    do {
      if (cursor !== undefined) query.set("cursor", cursor);
      const page = await client.request<{ approvals: IApproval[]; nextCursor?: string }>({
        method: "GET",
        path: `/v1/approvals?${query}`,
      });
      for (const approval of page.approvals) {
        if (format === "table") tableRows.push(approval);
        else io.printLine(format === "csv" ? csvRow(approval) : JSON.stringify(approval));
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    if (format === "table") {
      for (const line of formatApprovalTable(tableRows, output.view)) io.printLine(line);
    }
    return 0;
  },
});

/** --format when given (a --json or --output that says otherwise is refused), else the output format. */
function exportFormatOf(
  format: string | undefined,
  asked: TOutputFormat | undefined,
  io: Pick<ICliIo, "isTerminal">,
): TExportFormat {
  if (format !== undefined && format !== "jsonl" && format !== "csv" && format !== "table") {
    throw new UsageError(
      `--format must be jsonl, csv or table, got "${format}"`,
      approvalsExportCommand.path,
    );
  }
  const fromOutput: TExportFormat | undefined =
    asked === "json" ? "jsonl" : asked === "table" ? "table" : undefined;
  if (format !== undefined && fromOutput !== undefined && format !== fromOutput) {
    const flag = asked === "json" ? "--json" : "--output table";
    throw new UsageError(`give ${flag} or --format ${format}, not both`, approvalsExportCommand.path);
  }
  return format ?? fromOutput ?? (io.isTerminal === true ? "table" : "jsonl");
}

function instantFlag(flag: string, value: string, now: number): number {
  const instant = parseInstant(value, now);
  if (instant === undefined) {
    throw new UsageError(
      `--${flag} must be an ISO 8601 date or date-time, or a time ago such as 7d or 12h, got "${value}"`,
      approvalsExportCommand.path,
    );
  }
  return instant;
}
