import { parseEnv } from "../../config/env.js";
import type { ICommand } from "../command.js";
import { defineCommand } from "../define-command.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatEnqueuedRun, type IEnqueuedRunView } from "../output/run-views.js";

export const runsResumeCommand: ICommand = defineCommand({
  path: "runs resume",
  summary: "continue a failed, timed-out or cancelled run without running its completed calls again",
  usage: "<runId>",
  description: `Queues a new run through POST /v1/runs/:runId/resume (TOLLGATE_URL, TOLLGATE_TOKEN) that continues the
run where it stopped: its model replies and completed tool calls are taken over, never asked or run
again; the step that failed is tried again (the model asked again, or the calls the run's ending cut
run again under their tools' policy and retries). On the run's thread when it named one, else on a
thread of its own. The resume names the run (resumeOf) and the run names it (resumedBy); a run is
resumed once, so asking again prints the same resume ("created": false). Refused (TG_RUN_NOT_RESUMABLE)
for a run that completed or has not finished, or while a call it cut may still run.`,
  flags: {},
  positionals: { names: ["runId"], required: 1 },
  async run({ io, positionals, output }) {
    const [runId = ""] = positionals;
    const resumed = await apiClientFromEnv(parseEnv(io.env)).request<
      IEnqueuedRunView & { resumeOf: string; created: boolean }
    >({
      method: "POST",
      path: `/v1/runs/${encodeURIComponent(runId)}/resume`,
      body: {},
    });
    output.result(resumed, (queued, view) => [
      ...formatEnqueuedRun(queued, view),
      `Resume of: ${queued.resumeOf}${queued.created ? "" : " (resumed before: this is that resume)"}`,
    ]);
    return 0;
  },
});
