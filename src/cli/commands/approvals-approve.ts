import { parseEnv } from "../../config/env.js";
import type { IApproval } from "../../store/index.js";
import type { ICommand } from "../command.js";
import { defineCommand } from "../define-command.js";
import { jsonFlag } from "../flag-values.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatApproval } from "../output/approval-views.js";

export const approvalsApproveCommand: ICommand = defineCommand({
  path: "approvals approve",
  summary: "approve a parked tool call, optionally with an edited input",
  usage: "[--input <json>] [--comment <text>] [--input-hash <sha256>] <approvalId>",
  description: `Approves through POST /v1/approvals/:approvalId/approve (TOLLGATE_URL, TOLLGATE_TOKEN); the approver
is the token's subject. An edited input is checked against the tool's schema and decided again by
its policy.`,
  flags: {
    input: {
      type: "string",
      value: "<json>",
      help: "the edited input that runs instead of the model's, e.g. '{\"amount\":120}'\n(the whole input, not a patch)",
    },
    comment: { type: "string", value: "<text>", help: "kept with the decision" },
    "input-hash": {
      type: "string",
      value: "<sha256>",
      help: "the approval's inputHash as you reviewed it: refused if its input changed since",
    },
  },
  positionals: { names: ["approvalId"], required: 1 },
  async run({ io, values, positionals, output }) {
    const [approvalId = ""] = positionals;
    const body: Record<string, unknown> = {};
    if (values.input !== undefined) body.input = jsonFlag(approvalsApproveCommand, "input", values.input);
    if (values.comment !== undefined) body.comment = values.comment;
    if (values["input-hash"] !== undefined) body.inputHash = values["input-hash"];
    const approval = await apiClientFromEnv(parseEnv(io.env)).request<IApproval>({
      method: "POST",
      path: `/v1/approvals/${encodeURIComponent(approvalId)}/approve`,
      body,
    });
    output.result(approval, formatApproval);
    return 0;
  },
});
