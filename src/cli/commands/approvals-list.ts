import { parseEnv } from "../../config/env.js";
import type { IApproval } from "../../store/index.js";
import type { ICommand } from "../command.js";
import { printHelp, printResult } from "../command-output.js";
import { integerFlag } from "../flag-values.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatApprovalTable } from "../output/approval-views.js";
import { outputFlags, outputFormatOf, outputHelp, outputRule } from "../output/output-format.js";
import { parseCommandArgs } from "../parse-command-args.js";

const flags = {
  run: { type: "string" },
  tool: { type: "string" },
  user: { type: "string" },
  status: { type: "string" },
  approver: { type: "string" },
  limit: { type: "string" },
  cursor: { type: "string" },
  quiet: { type: "boolean", short: "q" },
  ...outputFlags,
} as const;

interface IApprovalPage {
  approvals: IApproval[];
  nextCursor?: string;
}

export const approvalsListCommand: ICommand = {
  path: "approvals list",
  summary: "list pending approvals, or decided ones",
  help: `Usage: tollgate approvals list [--status <status>] [--run <runId>] [--tool <name>] [--user <userId>]
                              [--approver <subject>] [--limit <n>] [--cursor <cursor>] [-q]

Prints one page of approvals and its nextCursor (GET /v1/approvals; TOLLGATE_URL, TOLLGATE_TOKEN):
pending ones soonest expiry first, decided ones newest decision first. For a whole history, use
\`tollgate approvals export\`.

${outputRule}

Options:
  --status <status>         pending (default), decided, approved, rejected, refused, expired or cancelled
  --run <runId>             only this run's
  --tool <name>             only calls of this tool
  --user <userId>           only calls made for this user
  --approver <subject>      only decisions of this approver
  --limit <n>               approvals per page, 1 to 1000 (default 100)
  --cursor <cursor>         the page after the one that returned this nextCursor
  -q, --quiet               print only the approvalIds, one a line
${outputHelp}
  -h, --help                show this help
`,
  async run(args, io) {
    const parsed = parseCommandArgs(approvalsListCommand, args, flags);
    if (parsed === "help") return printHelp(io, approvalsListCommand);
    const format = outputFormatOf(approvalsListCommand, parsed.values, io);
    const query = new URLSearchParams();
    if (parsed.values.run !== undefined) query.set("runId", parsed.values.run);
    if (parsed.values.tool !== undefined) query.set("tool", parsed.values.tool);
    if (parsed.values.user !== undefined) query.set("userId", parsed.values.user);
    if (parsed.values.status !== undefined) query.set("status", parsed.values.status);
    if (parsed.values.approver !== undefined) query.set("approver", parsed.values.approver);
    if (parsed.values.limit !== undefined) {
      const limit = integerFlag(approvalsListCommand, "limit", parsed.values.limit, { min: 1, max: 1000 });
      query.set("limit", String(limit));
    }
    if (parsed.values.cursor !== undefined) query.set("cursor", parsed.values.cursor);
    const search = query.size > 0 ? `?${query}` : "";
    const page = await apiClientFromEnv(parseEnv(io.env)).request<IApprovalPage>({
      method: "GET",
      path: `/v1/approvals${search}`,
    });
    if (parsed.values.quiet === true) {
      for (const approval of page.approvals) io.printLine(approval.approvalId);
    } else {
      printResult(io, format, page, () => formatApprovalTable(page.approvals, page.nextCursor));
    }
    return 0;
  },
};
