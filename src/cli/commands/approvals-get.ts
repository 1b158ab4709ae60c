import { parseEnv } from "../../config/env.js";
import type { ICommand } from "../command.js";
import { printHelp, printJson } from "../command-output.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { parseCommandArgs } from "../parse-command-args.js";

export const approvalsGetCommand: ICommand = {
  path: "approvals get",
  summary: "show one approval: the tool, its input, the reason, the decision once made",
  help: `Usage: tollgate approvals get <approvalId>

Prints GET /v1/approvals/:approvalId (TOLLGATE_URL, TOLLGATE_TOKEN).

Options:
  -h, --help  show this help
`,
  async run(args, io) {
    const parsed = parseCommandArgs(approvalsGetCommand, args, {}, { names: ["approvalId"], required: 1 });
    if (parsed === "help") return printHelp(io, approvalsGetCommand);
    const [approvalId = ""] = parsed.positionals;
    const approval = await apiClientFromEnv(parseEnv(io.env)).request({
      method: "GET",
      path: `/v1/approvals/${encodeURIComponent(approvalId)}`,
    });
    printJson(io, approval);
    return 0;
  },
};
