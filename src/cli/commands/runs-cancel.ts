import { parseEnv } from "../../config/env.js";
import type { ICommand } from "../command.js";
import { defineCommand } from "../define-command.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatCancelRequest, type ICancelRequestView } from "../output/run-views.js";

export const runsCancelCommand: ICommand = defineCommand({
  path: "runs cancel",
  summary: "cancel a run: running tools see their signal aborted, parked approvals go",
  usage: "<runId>",
  description: "Cancels the run through POST /v1/runs/:runId/cancel (TOLLGATE_URL, TOLLGATE_TOKEN).",
  flags: {},
  positionals: { names: ["runId"], required: 1 },
  async run({ io, positionals, output }) {
    const [runId = ""] = positionals;
    const answer = await apiClientFromEnv(parseEnv(io.env)).request<ICancelRequestView | undefined>({
      method: "POST",
      path: `/v1/runs/${encodeURIComponent(runId)}/cancel`,
    });
    output.result(answer ?? { runId, cancelRequested: true }, formatCancelRequest);
    return 0;
  },
});
