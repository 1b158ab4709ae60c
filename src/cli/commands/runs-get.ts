import { parseEnv } from "../../config/env.js";
import type { ICommand } from "../command.js";
import { printHelp, printJson } from "../command-output.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { parseCommandArgs } from "../parse-command-args.js";

export const runsGetCommand: ICommand = {
  path: "runs get",
  summary: "show a run: status, steps, pending approvals, the response once finished",
  help: `Usage: tollgate runs get <runId>

Prints the run as GET /v1/runs/:runId returns it (TOLLGATE_URL, TOLLGATE_TOKEN).

Options:
  -h, --help  show this help
`,
  async run(args, io) {
    const parsed = parseCommandArgs(runsGetCommand, args, {}, { names: ["runId"], required: 1 });
    if (parsed === "help") return printHelp(io, runsGetCommand);
    const [runId = ""] = parsed.positionals;
    const run = await apiClientFromEnv(parseEnv(io.env)).request({
      method: "GET",
      path: `/v1/runs/${encodeURIComponent(runId)}`,
    });
    printJson(io, run);
    return 0;
  },
};
