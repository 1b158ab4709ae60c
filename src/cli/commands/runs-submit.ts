import { parseEnv } from "../../config/env.js";
import type { IGatewayResponse } from "../../contracts/index.js";
import { UsageError } from "../cli-errors.js";
import type { ICommand } from "../command.js";
import { printHelp, printResult } from "../command-output.js";
import { integerFlag, jsonFlag, listFlag } from "../flag-values.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { outputFlags, outputFormatOf, outputHelp, outputRule } from "../output/output-format.js";
import { formatEnqueuedRun, formatResponse, type IEnqueuedRunView } from "../output/run-views.js";
import { parseCommandArgs, type TFlagValues } from "../parse-command-args.js";

const flags = {
  user: { type: "string" },
  "user-context": { type: "string" },
  thread: { type: "string" },
  tools: { type: "string" },
  "additional-tools": { type: "string" },
  "max-steps": { type: "string" },
  "timeout-ms": { type: "string" },
  metadata: { type: "string" },
  "idempotency-key": { type: "string" },
  wait: { type: "boolean" },
  quiet: { type: "boolean", short: "q" },
  ...outputFlags,
} as const;

export const runsSubmitCommand: ICommand = {
  path: "runs submit",
  summary: "enqueue a run (POST /v1/runs); with --wait, wait for its answer (POST /v1/ask)",
  help: `Usage: tollgate runs submit [options] <input>

Enqueues a run through the HTTP API (TOLLGATE_URL, TOLLGATE_TOKEN) and prints it: its runId, threadId
and status. <input> is the user's message; "-" reads it from standard input.

${outputRule}

Options:
  --user <id>               the user's id (userContext.userId) (default: "cli")
  --user-context <json>     the whole userContext, e.g. '{"userId":"u1","profile":"strict"}'
  --thread <id>             continue this thread (default: a new thread)
  --tools <a,b>             narrow the gateway's default tools to these
  --additional-tools <a,b>  add tools from the gateway's extraTools catalogue
  --max-steps <n>           model steps with tools before the last one
  --timeout-ms <n>          the run's deadline (with --wait: how long to wait)
  --metadata <json>         free JSON kept with the run
  --idempotency-key <key>   a retried submit with the same key returns the same run
  --wait                    wait for the run and print its response (POST /v1/ask)
  -q, --quiet               print only the runId, e.g. run=$(tollgate runs submit -q "...")
${outputHelp}
  -h, --help                show this help
`,
  async run(args, io) {
    const parsed = parseCommandArgs(runsSubmitCommand, args, flags, { names: ["input"], required: 1 });
    if (parsed === "help") return printHelp(io, runsSubmitCommand);
    const env = parseEnv(io.env);
    const [inputArgument = ""] = parsed.positionals;
    const input = inputArgument === "-" ? (await io.readStandardInput()).trimEnd() : inputArgument;
    const format = outputFormatOf(runsSubmitCommand, parsed.values, io);
    const body = runRequestBody(input, parsed.values);
    const idempotencyKey = parsed.values["idempotency-key"];
    const response = await apiClientFromEnv(env).request<IEnqueuedRunView | IGatewayResponse>({
      method: "POST",
      path: parsed.values.wait ? "/v1/ask" : "/v1/runs",
      body,
      ...(idempotencyKey !== undefined ? { headers: { "idempotency-key": idempotencyKey } } : {}),
    });
    if (parsed.values.quiet === true) io.printLine(response.runId);
    else if (parsed.values.wait === true)
      printResult(io, format, response as IGatewayResponse, formatResponse);
    else printResult(io, format, response, formatEnqueuedRun);
    return 0;
  },
};

function runRequestBody(input: string, values: TFlagValues<typeof flags>): Record<string, unknown> {
  const command = runsSubmitCommand;
  if (values.user !== undefined && values["user-context"] !== undefined) {
    throw new UsageError("give --user or --user-context, not both", command.path);
  }
  const body: Record<string, unknown> = {
    input,
    userContext:
      values["user-context"] !== undefined
        ? jsonFlag(command, "user-context", values["user-context"])
        : { userId: values.user ?? "cli" },
  };
  if (values.thread !== undefined) body.threadId = values.thread;
  if (values.tools !== undefined) body.tools = listFlag(values.tools);
  if (values["additional-tools"] !== undefined) body.additionalTools = listFlag(values["additional-tools"]);
  if (values["max-steps"] !== undefined) {
    body.maxSteps = integerFlag(command, "max-steps", values["max-steps"], { min: 1, max: 100 });
  }
  if (values["timeout-ms"] !== undefined) {
    body.timeoutMs = integerFlag(command, "timeout-ms", values["timeout-ms"], {
      min: 1,
      max: Number.MAX_SAFE_INTEGER,
    });
  }
  if (values.metadata !== undefined) body.metadata = jsonFlag(command, "metadata", values.metadata);
  return body;
}
