import { parseEnv } from "../../config/env.js";
import type { ICommand } from "../command.js";
import { printHelp, printResult } from "../command-output.js";
import { jsonFlag, requiredFlag } from "../flag-values.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { outputFlags, outputFormatOf, outputHelp, outputRule } from "../output/output-format.js";
import { formatEnqueuedRun, type IEnqueuedRunView } from "../output/run-views.js";
import { parseCommandArgs } from "../parse-command-args.js";

const flags = {
  "from-call": { type: "string" },
  input: { type: "string" },
  "repeat-effects": { type: "boolean" },
  ...outputFlags,
} as const;

export const runsForkCommand: ICommand = {
  path: "runs fork",
  summary: "run a run again from one of its tool calls, optionally with another input for it",
  help: `Usage: tollgate runs fork <runId> --from-call <callId> [--input <json>] [--repeat-effects]

Queues a new run through POST /v1/runs/:runId/fork (TOLLGATE_URL, TOLLGATE_TOKEN) that starts from the
run's state just before the call: the model replies and tool results before it are taken from the run,
not asked or run again. The call runs with --input if given (checked by the tool's schema, decided by
the policy and approved as any call), then the run goes on live. The fork names the original (forkOf)
and the original lists it (forks). Call ids are the run's toolResults[].callId (tollgate runs get).
Calls from that one on that ran tools not declared read-only are refused unless --repeat-effects.

${outputRule}

Options:
  --from-call <callId>      the run's tool call to start from (required)
  --input <json>            the call's whole input in the fork, e.g. '{"amount":120}'
  --repeat-effects          run again the calls of tools not declared read-only that the run
                            executed (refused without it: TG_RERUN_REPEATS_EFFECTS lists them)
${outputHelp}
  -h, --help                show this help
`,
  async run(args, io) {
    const parsed = parseCommandArgs(runsForkCommand, args, flags, { names: ["runId"], required: 1 });
    if (parsed === "help") return printHelp(io, runsForkCommand);
    const format = outputFormatOf(runsForkCommand, parsed.values, io);
    const [runId = ""] = parsed.positionals;
    const body = {
      fromCallId: requiredFlag(runsForkCommand, "from-call", parsed.values["from-call"]),
      ...(parsed.values.input !== undefined
        ? { input: jsonFlag(runsForkCommand, "input", parsed.values.input) }
        : {}),
      ...(parsed.values["repeat-effects"] === true ? { repeatEffects: true } : {}),
    };
    const fork = await apiClientFromEnv(parseEnv(io.env)).request<
      IEnqueuedRunView & { forkOf: { runId: string; callId: string } }
    >({
      method: "POST",
      path: `/v1/runs/${encodeURIComponent(runId)}/fork`,
      body,
    });
    printResult(io, format, fork, () => [
      ...formatEnqueuedRun(fork),
      `Fork of: ${fork.forkOf.runId} from call ${fork.forkOf.callId}`,
    ]);
    return 0;
  },
};
