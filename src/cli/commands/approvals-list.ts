import { parseEnv } from "../../config/env.js";
import type { IApproval } from "../../store/index.js";
import type { ICommand } from "../command.js";
import { defineCommand } from "../define-command.js";
import { integerFlag } from "../flag-values.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatApprovalTable } from "../output/approval-views.js";

interface IApprovalPage {
  approvals: IApproval[];
  nextCursor?: string;
}

export const approvalsListCommand: ICommand = defineCommand({
  path: "approvals list",
  summary: "list pending approvals, or decided ones",
  usage: `[--status <status>] [--run <runId>] [--tool <name>] [--user <userId>]
                              [--approver <subject>] [--limit <n>] [--cursor <cursor>] [-q]`,
  description: `Prints one page of approvals and its nextCursor (GET /v1/approvals; TOLLGATE_URL, TOLLGATE_TOKEN):
pending ones soonest expiry first, decided ones newest decision first. Under each row, the input that
would run (the approver's edit once there is one) as key: value fields, cut to the terminal's width.
For a whole history, use \`tollgate approvals export\`.`,
  flags: {
    status: {
      type: "string",
      value: "<status>",
      help: "pending (default), decided, approved, rejected, refused, expired or cancelled",
    },
    run: { type: "string", value: "<runId>", help: "only this run's" },
    tool: { type: "string", value: "<name>", help: "only calls of this tool" },
    user: { type: "string", value: "<userId>", help: "only calls made for this user" },
    approver: { type: "string", value: "<subject>", help: "only decisions of this approver" },
    limit: { type: "string", value: "<n>", help: "approvals per page, 1 to 1000 (default 100)" },
    cursor: {
      type: "string",
      value: "<cursor>",
      help: "the page after the one that returned this nextCursor",
    },
    quiet: { type: "boolean", short: "q", help: "print only the approvalIds, one a line" },
  },
  async run({ io, values, output }) {
    const query = new URLSearchParams();
    if (values.run !== undefined) query.set("runId", values.run);
    if (values.tool !== undefined) query.set("tool", values.tool);
    if (values.user !== undefined) query.set("userId", values.user);
    if (values.status !== undefined) query.set("status", values.status);
    if (values.approver !== undefined) query.set("approver", values.approver);
    if (values.limit !== undefined) {
      const limit = integerFlag(approvalsListCommand, "limit", values.limit, { min: 1, max: 1000 });
      query.set("limit", String(limit));
    }
    if (values.cursor !== undefined) query.set("cursor", values.cursor);
    const search = query.size > 0 ? `?${query}` : "";
    const page = await apiClientFromEnv(parseEnv(io.env)).request<IApprovalPage>({
      method: "GET",
      path: `/v1/approvals${search}`,
    });
    if (values.quiet === true) {
      for (const approval of page.approvals) io.printLine(approval.approvalId);
    } else {
      output.result(page, (listed, view) => formatApprovalTable(listed.approvals, view, listed.nextCursor));
    }
    return 0;
  },
});
