import { parseEnv } from "../../config/env.js";
import type { IApproval } from "../../store/index.js";
import type { ICommand } from "../command.js";
import { defineCommand } from "../define-command.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatApproval } from "../output/approval-views.js";

export const approvalsGetCommand: ICommand = defineCommand({
  path: "approvals get",
  summary: "show one approval: the tool, its input, the reason, the decision once made",
  usage: "<approvalId>",
  description: "Prints GET /v1/approvals/:approvalId (TOLLGATE_URL, TOLLGATE_TOKEN).",
  flags: {},
  positionals: { names: ["approvalId"], required: 1 },
  async run({ io, positionals, output }) {
    const [approvalId = ""] = positionals;
    const approval = await apiClientFromEnv(parseEnv(io.env)).request<IApproval>({
      method: "GET",
      path: `/v1/approvals/${encodeURIComponent(approvalId)}`,
    });
    output.result(approval, formatApproval);
    return 0;
  },
});
