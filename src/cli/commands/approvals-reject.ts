import { parseEnv } from "../../config/env.js";
import type { IApproval } from "../../store/index.js";
import type { ICommand } from "../command.js";
import { printHelp, printResult } from "../command-output.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatApproval } from "../output/approval-views.js";
import { outputFlags, outputFormatOf, outputHelp, outputRule } from "../output/output-format.js";
import { parseCommandArgs } from "../parse-command-args.js";

const flags = {
  reason: { type: "string" },
  option: { type: "string" },
  "input-hash": { type: "string" },
  ...outputFlags,
} as const;

export const approvalsRejectCommand: ICommand = {
  path: "approvals reject",
  summary: "reject a parked tool call; the model reads the reason",
  help: `Usage: tollgate approvals reject [--option <name>] [--reason <text>] [--input-hash <sha256>] <approvalId>

Rejects through POST /v1/approvals/:approvalId/reject (TOLLGATE_URL, TOLLGATE_TOKEN). The call never
runs; the model reads the option's promptFill (then the reason), else the reason, else the tool's
rejectionText. \`approvals get\` lists the approval's reject options.

${outputRule}

Options:
  --option <name>           one of the approval's reject options (an unknown one is refused, naming them)
  --reason <text>           what the model reads (after the option's promptFill)
  --input-hash <sha256>     the approval's inputHash as you reviewed it: refused if its input changed since
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
      body: {
        ...(parsed.values.reason !== undefined ? { reason: parsed.values.reason } : {}),
        ...(parsed.values.option !== undefined ? { option: parsed.values.option } : {}),
        ...(parsed.values["input-hash"] !== undefined ? { inputHash: parsed.values["input-hash"] } : {}),
      },
    });
    printResult(io, format, approval, formatApproval);
    return 0;
  },
};
