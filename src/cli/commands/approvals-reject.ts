import { parseEnv } from "../../config/env.js";
import type { IApproval } from "../../store/index.js";
import type { ICommand } from "../command.js";
import { defineCommand } from "../define-command.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatApproval } from "../output/approval-views.js";

export const approvalsRejectCommand: ICommand = defineCommand({
  path: "approvals reject",
  summary: "reject a parked tool call; the model reads the reason",
  usage: "[--option <name>] [--reason <text>] [--input-hash <sha256>] <approvalId>",
  description: `Rejects through POST /v1/approvals/:approvalId/reject (TOLLGATE_URL, TOLLGATE_TOKEN). The call never
runs; the model reads the option's promptFill (then the reason), else the reason, else the tool's
rejectionText. \`approvals get\` lists the approval's reject options.`,
  flags: {
    option: {
      type: "string",
      value: "<name>",
      help: "one of the approval's reject options (an unknown one is refused, naming them)",
    },
    reason: { type: "string", value: "<text>", help: "what the model reads (after the option's promptFill)" },
    "input-hash": {
      type: "string",
      value: "<sha256>",
      help: "the approval's inputHash as you reviewed it: refused if its input changed since",
    },
  },
  positionals: { names: ["approvalId"], required: 1 },
  async run({ io, values, positionals, output }) {
    const [approvalId = ""] = positionals;
    const approval = await apiClientFromEnv(parseEnv(io.env)).request<IApproval>({
      method: "POST",
      path: `/v1/approvals/${encodeURIComponent(approvalId)}/reject`,
      body: {
        ...(values.reason !== undefined ? { reason: values.reason } : {}),
        ...(values.option !== undefined ? { option: values.option } : {}),
        ...(values["input-hash"] !== undefined ? { inputHash: values["input-hash"] } : {}),
      },
    });
    output.result(approval, formatApproval);
    return 0;
  },
});
