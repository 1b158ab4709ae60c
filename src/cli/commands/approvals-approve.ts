import { parseEnv } from "../../config/env.js";
import type { IApproval } from "../../store/index.js";
import type { ICommand } from "../command.js";
import { printHelp, printResult } from "../command-output.js";
import { jsonFlag } from "../flag-values.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatApproval } from "../output/approval-views.js";
import { outputFlags, outputFormatOf, outputHelp, outputRule } from "../output/output-format.js";
import { parseCommandArgs } from "../parse-command-args.js";

const flags = {
  input: { type: "string" },
  comment: { type: "string" },
  "input-hash": { type: "string" },
  ...outputFlags,
} as const;

export const approvalsApproveCommand: ICommand = {
  path: "approvals approve",
  summary: "approve a parked tool call, optionally with an edited input",
  help: `Usage: tollgate approvals approve [--input <json>] [--comment <text>] [--input-hash <sha256>] <approvalId>

Approves through POST /v1/approvals/:approvalId/approve (TOLLGATE_URL, TOLLGATE_TOKEN); the approver
is the token's subject. An edited input is checked against the tool's schema and decided again by
its policy.

${outputRule}

Options:
  --input <json>            the edited input that runs instead of the model's, e.g. '{"amount":120}'
                            (the whole input, not a patch)
  --comment <text>          kept with the decision
  --input-hash <sha256>     the approval's inputHash as you reviewed it: refused if its input changed since
${outputHelp}
  -h, --help                show this help
`,
  async run(args, io) {
    const parsed = parseCommandArgs(approvalsApproveCommand, args, flags, {
      names: ["approvalId"],
      required: 1,
    });
    if (parsed === "help") return printHelp(io, approvalsApproveCommand);
    const format = outputFormatOf(approvalsApproveCommand, parsed.values, io);
    const [approvalId = ""] = parsed.positionals;
    const body: Record<string, unknown> = {};
    if (parsed.values.input !== undefined) {
      body.input = jsonFlag(approvalsApproveCommand, "input", parsed.values.input);
    }
    if (parsed.values.comment !== undefined) body.comment = parsed.values.comment;
    if (parsed.values["input-hash"] !== undefined) body.inputHash = parsed.values["input-hash"];
    const approval = await apiClientFromEnv(parseEnv(io.env)).request<IApproval>({
      method: "POST",
      path: `/v1/approvals/${encodeURIComponent(approvalId)}/approve`,
      body,
    });
    printResult(io, format, approval, formatApproval);
    return 0;
  },
};
