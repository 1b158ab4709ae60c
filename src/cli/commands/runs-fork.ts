import { parseEnv } from "../../config/env.js";
import type { ICommand } from "../command.js";
import { defineCommand } from "../define-command.js";
import { jsonFlag, requiredFlag } from "../flag-values.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatEnqueuedRun, type IEnqueuedRunView } from "../output/run-views.js";

export const runsForkCommand: ICommand = defineCommand({
  path: "runs fork",
  summary: "run a run again from one of its tool calls, optionally with another input for it",
  usage: "<runId> --from-call <callId> [--input <json>] [--repeat-effects]",
  description: `Queues a new run through POST /v1/runs/:runId/fork (TOLLGATE_URL, TOLLGATE_TOKEN) that starts from the
run's state just before the call: the model replies and tool results before it are taken from the run,
not asked or run again. The call runs with --input if given (checked by the tool's schema, decided by
the policy and approved as any call), then the run goes on live. The fork names the original (forkOf)
and the original lists it (forks). Call ids are the run's toolResults[].callId (tollgate runs get).
Calls from that one on that ran tools not declared read-only are refused unless --repeat-effects.`,
  flags: {
    "from-call": { type: "string", value: "<callId>", help: "the run's tool call to start from (required)" },
    input: {
      type: "string",
      value: "<json>",
      help: "the call's whole input in the fork, e.g. '{\"amount\":120}'",
    },
    "repeat-effects": {
      type: "boolean",
      help: "run again the calls of tools not declared read-only that the run executed (refused without it: TG_RERUN_REPEATS_EFFECTS lists them)",
    },
  },
  positionals: { names: ["runId"], required: 1 },
  async run({ io, values, positionals, output }) {
    const [runId = ""] = positionals;
    const body = {
      fromCallId: requiredFlag(runsForkCommand, "from-call", values["from-call"]),
      ...(values.input !== undefined ? { input: jsonFlag(runsForkCommand, "input", values.input) } : {}),
      ...(values["repeat-effects"] === true ? { repeatEffects: true } : {}),
    };
    const fork = await apiClientFromEnv(parseEnv(io.env)).request<
      IEnqueuedRunView & { forkOf: { runId: string; callId: string } }
    >({
      method: "POST",
      path: `/v1/runs/${encodeURIComponent(runId)}/fork`,
      body,
    });
    output.result(fork, (forked, view) => [
      ...formatEnqueuedRun(forked, view),
      `Fork of: ${forked.forkOf.runId} from call ${forked.forkOf.callId}`,
    ]);
    return 0;
  },
});
