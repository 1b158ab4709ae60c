import { parseEnv } from "../../config/env.js";
import type { IApproval, TApprovalListStatus } from "../../store/index.js";
import { approvalListStatuses } from "../../store/index.js";
import { csvHeader, csvRow, parseInstant } from "../approval-export-format.js";
import { UsageError } from "../cli-errors.js";
import type { ICliIo } from "../cli-io.js";
import type { ICommand } from "../command.js";
import { printHelp } from "../command-output.js";
import { requiredFlag } from "../flag-values.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatApprovalTable } from "../output/approval-views.js";
import { parseCommandArgs } from "../parse-command-args.js";

const flags = {
  since: { type: "string" },
  until: { type: "string" },
  format: { type: "string" },
  status: { type: "string" },
  tool: { type: "string" },
  user: { type: "string" },
  approver: { type: "string" },
  tenant: { type: "string" },
  json: { type: "boolean" },
} as const;

/** The largest page the API gives: an export reads as few pages as it can. */
const pageSize = 1000;

export const approvalsExportCommand: ICommand = {
  path: "approvals export",
  summary: "export the decision history for auditors (JSON lines or CSV)",
  help: `Usage: tollgate approvals export --since <when> [--until <when>] [--format jsonl|csv|table]
                                [--status <status>] [--tool <name>] [--user <userId>]
                                [--approver <subject>] [--tenant <name>]

Prints every approval that matches, page after page of GET /v1/approvals (TOLLGATE_URL, TOLLGATE_TOKEN),
newest decision first: one JSON object per line, CSV with a header row (times in ISO 8601 UTC, the
inputs and the diff as JSON), or a table. Without --format: a table on a terminal, JSON lines when
piped or redirected. Decided approvals are kept for TOLLGATE_APPROVAL_RETENTION_MS (90 days).

Options:
  --since <when>       from this time (decidedAt; requestedAt for pending): ISO 8601, or ago: 90s 30m 12h 7d 2w
  --until <when>       up to this time (same forms); default now
  --format <format>    jsonl, csv or table (default: table on a terminal, jsonl otherwise)
  --json               the same as --format jsonl
  --status <status>    decided (default), approved, rejected, refused, expired, cancelled or pending
  --tool <name>        only calls of this tool
  --user <userId>      only calls made for this user
  --approver <subject> only decisions of this approver
  --tenant <name>      only this tenant's (a token of every tenant)
  -h, --help           show this help
`,
  async run(args, io) {
    const parsed = parseCommandArgs(approvalsExportCommand, args, flags);
    if (parsed === "help") return printHelp(io, approvalsExportCommand);
    const { values } = parsed;
    const now = Date.now();
    const format = exportFormatOf(values, io);
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
    if (format === "table") for (const line of formatApprovalTable(tableRows)) io.printLine(line);
    return 0;
  },
};

function exportFormatOf(
  values: { format?: string | undefined; json?: boolean | undefined },
  io: Pick<ICliIo, "isTerminal">,
): "jsonl" | "csv" | "table" {
  const { format } = values;
  if (format !== undefined && format !== "jsonl" && format !== "csv" && format !== "table") {
    throw new UsageError(
      `--format must be jsonl, csv or table, got "${format}"`,
      approvalsExportCommand.path,
    );
  }
  if (values.json === true) {
    if (format !== undefined && format !== "jsonl") {
      throw new UsageError(`give --json or --format ${format}, not both`, approvalsExportCommand.path);
    }
    return "jsonl";
  }
  return format ?? (io.isTerminal === true ? "table" : "jsonl");
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
