import { parseEnv } from "../../config/env.js";
import type { IRunView } from "../../producer/index.js";
import type { ICommand } from "../command.js";
import { defineCommand } from "../define-command.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatRunView } from "../output/run-views.js";

export const runsGetCommand: ICommand = defineCommand({
  path: "runs get",
  summary: "show a run: its user and input, status, decisions, pending approvals, the response",
  usage: "<runId>",
  description: `Prints the run as GET /v1/runs/:runId returns it (TOLLGATE_URL, TOLLGATE_TOKEN): who it runs for
and what it was asked, its status and how long it took, its tool calls, which of them a person
approved, edited (what the edit changed) or rejected, the approvals it waits for, and its answer once
it has finished.`,
  flags: {},
  positionals: { names: ["runId"], required: 1 },
  async run({ io, positionals, output }) {
    const [runId = ""] = positionals;
    const run = await apiClientFromEnv(parseEnv(io.env)).request<IRunView>({
      method: "GET",
      path: `/v1/runs/${encodeURIComponent(runId)}`,
    });
    output.result(run, formatRunView);
    return 0;
  },
});
