import { parseEnv } from "../../config/env.js";
import type { IApproval } from "../../store/index.js";
import type { ICommand } from "../command.js";
import { printHelp, printResult } from "../command-output.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatApproval } from "../output/approval-views.js";
import { outputFlags, outputFormatOf, outputHelp, outputRule } from "../output/output-format.js";
import { parseCommandArgs } from "../parse-command-args.js";

const flags = { reason: { type: "string" }, ...outputFlags } as const;

export const approvalsRejectCommand: ICommand = {
  path: "approvals reject",
  summary: "reject a parked tool call; the model reads the reason",
  help: `Usage: tollgate approvals reject [--reason <text>] <approvalId>

Rejects through POST /v1/approvals/:approvalId/reject (TOLLGATE_URL, TOLLGATE_TOKEN). The call never
runs; the model reads the reason, or the tool's rejectionText when none is given.

${outputRule}

Options:
  --reason <text>           what the model reads
${outputHelp}
  -h, --help                show this help
`,
  async run(args, io) {
    const parsed = parseCommandArgs(approvalsRejectCommand, args, flags, {
      names: ["approvalId"],
      required: 1,
    });
    if (parsed === "help") return printHelp(io, approvalsRejectCommand);
    const format = outputFormatOf(approvalsRejectCommand, parsed.values, io);
    const [approvalId = ""] = parsed.positionals;
    const approval = await apiClientFromEnv(parseEnv(io.env)).request<IApproval>({
      method: "POST",
      path: `/v1/approvals/${encodeURIComponent(approvalId)}/reject`,
      body: parsed.values.reason !== undefined ? { reason: parsed.values.reason } : {},
    });
    printResult(io, format, approval, formatApproval);
    return 0;
  },
};
