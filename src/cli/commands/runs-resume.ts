import { parseEnv } from "../../config/env.js";
import type { ICommand } from "../command.js";
import { printHelp, printResult } from "../command-output.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { outputFlags, outputFormatOf, outputHelp, outputRule } from "../output/output-format.js";
import { formatEnqueuedRun, type IEnqueuedRunView } from "../output/run-views.js";
import { parseCommandArgs } from "../parse-command-args.js";

const flags = { ...outputFlags } as const;

export const runsResumeCommand: ICommand = {
  path: "runs resume",
  summary: "continue a failed, timed-out or cancelled run without running its completed calls again",
  help: `Usage: tollgate runs resume <runId>

Queues a new run through POST /v1/runs/:runId/resume (TOLLGATE_URL, TOLLGATE_TOKEN) that continues the
run where it stopped: its model replies and completed tool calls are taken over, never asked or run
again; the step that failed is tried again (the model asked again, or the calls the run's ending cut
run again under their tools' policy and retries). On the run's thread when it named one, else on a
thread of its own. The resume names the run (resumeOf) and the run names it (resumedBy); a run is
resumed once, so asking again prints the same resume ("created": false). Refused (TG_RUN_NOT_RESUMABLE)
for a run that completed or has not finished, or while a call it cut may still run.

${outputRule}

Options:
${outputHelp}
  -h, --help                show this help
`,
  async run(args, io) {
    const parsed = parseCommandArgs(runsResumeCommand, args, flags, { names: ["runId"], required: 1 });
    if (parsed === "help") return printHelp(io, runsResumeCommand);
    const format = outputFormatOf(runsResumeCommand, parsed.values, io);
    const [runId = ""] = parsed.positionals;
    const resumed = await apiClientFromEnv(parseEnv(io.env)).request<
      IEnqueuedRunView & { resumeOf: string; created: boolean }
    >({
      method: "POST",
      path: `/v1/runs/${encodeURIComponent(runId)}/resume`,
      body: {},
    });
    printResult(io, format, resumed, () => [
      ...formatEnqueuedRun(resumed),
      `Resume of: ${resumed.resumeOf}${resumed.created ? "" : " (resumed before: this is that resume)"}`,
    ]);
    return 0;
  },
};
