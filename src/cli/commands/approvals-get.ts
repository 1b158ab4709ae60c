import { parseEnv } from "../../config/env.js";
import type { IApproval } from "../../store/index.js";
import type { ICommand } from "../command.js";
import { printHelp, printResult } from "../command-output.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatApproval } from "../output/approval-views.js";
import { outputFlags, outputFormatOf, outputHelp, outputRule } from "../output/output-format.js";
import { parseCommandArgs } from "../parse-command-args.js";

export const approvalsGetCommand: ICommand = {
  path: "approvals get",
  summary: "show one approval: the tool, its input, the reason, the decision once made",
  help: `Usage: tollgate approvals get <approvalId>

Prints GET /v1/approvals/:approvalId (TOLLGATE_URL, TOLLGATE_TOKEN).

${outputRule}

Options:
${outputHelp}
  -h, --help                show this help
`,
  async run(args, io) {
    const parsed = parseCommandArgs(approvalsGetCommand, args, outputFlags, {
      names: ["approvalId"],
      required: 1,
    });
    if (parsed === "help") return printHelp(io, approvalsGetCommand);
    const format = outputFormatOf(approvalsGetCommand, parsed.values, io);
    const [approvalId = ""] = parsed.positionals;
    const approval = await apiClientFromEnv(parseEnv(io.env)).request<IApproval>({
      method: "GET",
      path: `/v1/approvals/${encodeURIComponent(approvalId)}`,
    });
    printResult(io, format, approval, formatApproval);
    return 0;
  },
};
