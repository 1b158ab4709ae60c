import { parseEnv } from "../../config/env.js";
import type { ICommand } from "../command.js";
import { printHelp, printJson } from "../command-output.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { parseCommandArgs } from "../parse-command-args.js";

export const runsCancelCommand: ICommand = {
  path: "runs cancel",
  summary: "cancel a run: running tools see their signal aborted, parked approvals go",
  help: `Usage: tollgate runs cancel <runId>

Cancels the run through POST /v1/runs/:runId/cancel (TOLLGATE_URL, TOLLGATE_TOKEN).

Options:
  -h, --help  show this help
`,
  async run(args, io) {
    const parsed = parseCommandArgs(runsCancelCommand, args, {}, { names: ["runId"], required: 1 });
    if (parsed === "help") return printHelp(io, runsCancelCommand);
    const [runId = ""] = parsed.positionals;
    const result = await apiClientFromEnv(parseEnv(io.env)).request({
      method: "POST",
      path: `/v1/runs/${encodeURIComponent(runId)}/cancel`,
    });
    printJson(io, result ?? { runId, cancelled: true });
    return 0;
  },
};
