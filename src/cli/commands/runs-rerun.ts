import { parseEnv } from "../../config/env.js";
import type { ICommand } from "../command.js";
import { defineCommand } from "../define-command.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatEnqueuedRun, type IEnqueuedRunView } from "../output/run-views.js";

export const runsRerunCommand: ICommand = defineCommand({
  path: "runs rerun",
  summary: "run a run's request again, optionally with another input or user",
  usage: "<runId> [--input <text>] [--user <userId>] [--repeat-effects]",
  description: `Queues a new run with the run's request through POST /v1/runs/:runId/rerun (TOLLGATE_URL,
TOLLGATE_TOKEN): the same tools, budgets and instructions, on its thread when it named one. The new
run names the original (rerunOf) and the original lists it (reruns). A run that executed calls of tools
not declared read-only (a payment, an email) is refused unless --repeat-effects: to recover a failed
run without running its calls again, use tollgate runs resume.`,
  flags: {
    input: { type: "string", value: "<text>", help: "another user message" },
    user: { type: "string", value: "<userId>", help: "run for another user" },
    "repeat-effects": {
      type: "boolean",
      help: "run again the calls of tools not declared read-only that the run executed (refused without it: TG_RERUN_REPEATS_EFFECTS lists them)",
    },
  },
  positionals: { names: ["runId"], required: 1 },
  async run({ io, values, positionals, output }) {
    const [runId = ""] = positionals;
    const body = {
      ...(values.input !== undefined ? { input: values.input } : {}),
      ...(values.user !== undefined ? { userContext: { userId: values.user } } : {}),
      ...(values["repeat-effects"] === true ? { repeatEffects: true } : {}),
    };
    const rerun = await apiClientFromEnv(parseEnv(io.env)).request<IEnqueuedRunView & { rerunOf: string }>({
      method: "POST",
      path: `/v1/runs/${encodeURIComponent(runId)}/rerun`,
      body,
    });
    output.result(rerun, (queued, view) => [
      ...formatEnqueuedRun(queued, view),
      `Rerun of: ${queued.rerunOf}`,
    ]);
    return 0;
  },
});
