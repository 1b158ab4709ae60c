import { parseEnv } from "../../config/env.js";
import type { ICommand } from "../command.js";
import { printHelp, printResult } from "../command-output.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { outputFlags, outputFormatOf, outputHelp, outputRule } from "../output/output-format.js";
import { formatEnqueuedRun, type IEnqueuedRunView } from "../output/run-views.js";
import { parseCommandArgs } from "../parse-command-args.js";

const flags = {
  input: { type: "string" },
  user: { type: "string" },
  "repeat-effects": { type: "boolean" },
  ...outputFlags,
} as const;

export const runsRerunCommand: ICommand = {
  path: "runs rerun",
  summary: "run a run's request again, optionally with another input or user",
  help: `Usage: tollgate runs rerun <runId> [--input <text>] [--user <userId>] [--repeat-effects]

Queues a new run with the run's request through POST /v1/runs/:runId/rerun (TOLLGATE_URL,
TOLLGATE_TOKEN): the same tools, budgets and instructions, on its thread when it named one. The new
run names the original (rerunOf) and the original lists it (reruns). A run that executed calls of tools
not declared read-only (a payment, an email) is refused unless --repeat-effects: to recover a failed
run without running its calls again, use tollgate runs resume.

${outputRule}

Options:
  --input <text>            another user message
  --user <userId>           run for another user
  --repeat-effects          run again the calls of tools not declared read-only that the run
                            executed (refused without it: TG_RERUN_REPEATS_EFFECTS lists them)
${outputHelp}
  -h, --help                show this help
`,
  async run(args, io) {
    const parsed = parseCommandArgs(runsRerunCommand, args, flags, { names: ["runId"], required: 1 });
    if (parsed === "help") return printHelp(io, runsRerunCommand);
    const format = outputFormatOf(runsRerunCommand, parsed.values, io);
    const [runId = ""] = parsed.positionals;
    const body = {
      ...(parsed.values.input !== undefined ? { input: parsed.values.input } : {}),
      ...(parsed.values.user !== undefined ? { userContext: { userId: parsed.values.user } } : {}),
      ...(parsed.values["repeat-effects"] === true ? { repeatEffects: true } : {}),
    };
    const rerun = await apiClientFromEnv(parseEnv(io.env)).request<IEnqueuedRunView & { rerunOf: string }>({
      method: "POST",
      path: `/v1/runs/${encodeURIComponent(runId)}/rerun`,
      body,
    });
    printResult(io, format, rerun, () => [...formatEnqueuedRun(rerun), `Rerun of: ${rerun.rerunOf}`]);
    return 0;
  },
};
