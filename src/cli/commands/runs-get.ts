import { parseEnv } from "../../config/env.js";
import type { IRunView } from "../../producer/index.js";
import type { ICommand } from "../command.js";
import { printHelp, printResult } from "../command-output.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { outputFlags, outputFormatOf, outputHelp, outputRule } from "../output/output-format.js";
import { formatRunView } from "../output/run-views.js";
import { parseCommandArgs } from "../parse-command-args.js";

export const runsGetCommand: ICommand = {
  path: "runs get",
  summary: "show a run: status, steps, pending approvals, the response once finished",
  help: `Usage: tollgate runs get <runId>

Prints the run as GET /v1/runs/:runId returns it (TOLLGATE_URL, TOLLGATE_TOKEN): its status, the
approvals it waits for, and its answer once it has finished.

${outputRule}

Options:
${outputHelp}
  -h, --help                show this help
`,
  async run(args, io) {
    const parsed = parseCommandArgs(runsGetCommand, args, outputFlags, { names: ["runId"], required: 1 });
    if (parsed === "help") return printHelp(io, runsGetCommand);
    const format = outputFormatOf(runsGetCommand, parsed.values, io);
    const [runId = ""] = parsed.positionals;
    const run = await apiClientFromEnv(parseEnv(io.env)).request<IRunView>({
      method: "GET",
      path: `/v1/runs/${encodeURIComponent(runId)}`,
    });
    printResult(io, format, run, formatRunView);
    return 0;
  },
};
