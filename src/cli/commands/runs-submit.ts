import { parseEnv } from "../../config/env.js";
import type { IGatewayResponse } from "../../contracts/index.js";
import { UsageError } from "../cli-errors.js";
import type { ICommand } from "../command.js";
import { defineCommand } from "../define-command.js";
import { integerFlag, jsonFlag, listFlag } from "../flag-values.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatEnqueuedRun, formatResponse, type IEnqueuedRunView } from "../output/run-views.js";
import type { TFlagValues } from "../parse-command-args.js";

const flags = {
  user: { type: "string", value: "<id>", help: 'the user\'s id (userContext.userId) (default: "cli")' },
  "user-context": {
    type: "string",
    value: "<json>",
    help: 'the whole userContext, e.g. \'{"userId":"u1","profile":"strict"}\'',
  },
  thread: { type: "string", value: "<id>", help: "continue this thread (default: a new thread)" },
  tools: { type: "string", value: "<a,b>", help: "narrow the gateway's default tools to these" },
  "additional-tools": {
    type: "string",
    value: "<a,b>",
    help: "add tools from the gateway's extraTools catalogue",
  },
  "max-steps": { type: "string", value: "<n>", help: "model steps with tools before the last one" },
  "timeout-ms": { type: "string", value: "<n>", help: "the run's deadline (with --wait: how long to wait)" },
  metadata: { type: "string", value: "<json>", help: "free JSON kept with the run" },
  "idempotency-key": {
    type: "string",
    value: "<key>",
    help: "a retried submit with the same key returns the same run",
  },
  wait: { type: "boolean", help: "wait for the run and print its response (POST /v1/ask)" },
  quiet: {
    type: "boolean",
    short: "q",
    help: 'print only the runId, e.g. run=$(tollgate runs submit -q "...")',
  },
} as const;

export const runsSubmitCommand: ICommand = defineCommand({
  path: "runs submit",
  summary: "enqueue a run (POST /v1/runs); with --wait, wait for its answer (POST /v1/ask)",
  usage: "[options] <input>",
  description: `Enqueues a run through the HTTP API (TOLLGATE_URL, TOLLGATE_TOKEN) and prints it: its runId, threadId
and status. <input> is the user's message; "-" reads it from standard input.`,
  flags,
  positionals: { names: ["input"], required: 1 },
  async run({ io, values, positionals, output }) {
    const env = parseEnv(io.env);
    const [inputArgument = ""] = positionals;
    const input = inputArgument === "-" ? (await io.readStandardInput()).trimEnd() : inputArgument;
    const body = runRequestBody(input, values);
    const idempotencyKey = values["idempotency-key"];
    const response = await apiClientFromEnv(env).request<IEnqueuedRunView | IGatewayResponse>({
      method: "POST",
      path: values.wait ? "/v1/ask" : "/v1/runs",
      body,
      ...(idempotencyKey !== undefined ? { headers: { "idempotency-key": idempotencyKey } } : {}),
    });
    if (values.quiet === true) io.printLine(response.runId);
    else if (values.wait === true) output.result(response as IGatewayResponse, formatResponse);
    else output.result(response, formatEnqueuedRun);
    return 0;
  },
});

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
