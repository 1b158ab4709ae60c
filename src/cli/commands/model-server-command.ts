import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseEnv } from "../../config/env.js";
import { CliError } from "../cli-errors.js";
import type { ICommand } from "../command.js";
import { defineCommand } from "../define-command.js";
import { integerFlag } from "../flag-values.js";

export const modelServerCommand: ICommand = defineCommand({
  path: "model-server",
  summary: "serve the built-in scripted model (OpenAI-compatible) for keyless use and tests",
  usage: "[--port <n>] [--host <address>] [--scripts <file>] [--chunk-delay-ms <n>]",
  description: `Serves the scripted model: an OpenAI-compatible /v1/chat/completions endpoint. Point workers at it
with OPENAI_BASE_URL=http://<host>:<port>/v1. A user message that is JSON with a "script" array,
{"script":[{"calls":[{"name":"lookup_order","input":{"orderId":"A-1001"}}]},{"text":"done"}]},
makes the model call those tools, then answer. With --scripts, a message without a script of its own
gets the script of the first rule whose "match" (a regular expression, case-insensitive) finds it:
[{"match":"where is my order A-1001","script":[...]}]. Any other message is echoed. Stops on
SIGTERM/SIGINT. With "stream": true it streams the reply in chunks of about a token (tool-call
arguments too), --chunk-delay-ms apart (a script entry's "chunkDelayMs" overrides it).
It keeps the latest TOLLGATE_MODEL_SERVER_MAX_RECORDED_REQUESTS request bodies (default 1000).`,
  flags: {
    port: {
      type: "string",
      value: "<n>",
      help: "port (default: TOLLGATE_MODEL_SERVER_PORT or 4010; 0 picks a free one)",
    },
    host: { type: "string", value: "<address>", help: "address (default: TOLLGATE_HOST or 127.0.0.1)" },
    scripts: {
      type: "string",
      value: "<file>",
      help: "scripts chosen by the message's text, e.g. examples/support-desk/model-scripts.json",
    },
    "chunk-delay-ms": {
      type: "string",
      value: "<n>",
      help: "pause between the chunks of a streamed reply (default 0)",
    },
  },
  formats: "its lines as text, or a JSON object per line",
  whenPiped: "table",
  async run({ io, values, output }) {
    const port =
      values.port !== undefined
        ? integerFlag(modelServerCommand, "port", values.port, { min: 0, max: 65_535 })
        : undefined;
    const chunkDelayMs =
      values["chunk-delay-ms"] !== undefined
        ? integerFlag(modelServerCommand, "chunk-delay-ms", values["chunk-delay-ms"], {
            min: 0,
            max: 60_000,
          })
        : undefined;
    const env = parseEnv(io.env);
    const promptScripts =
      values.scripts !== undefined ? await readPromptScripts(resolve(io.cwd, values.scripts)) : undefined;
    // Loaded only now, like the other services: --help should not wait for the model SDK.
    const { runModelServer } = await import("../../model/scripted/index.js");
    const server = await runModelServer({
      port: port ?? env.TOLLGATE_MODEL_SERVER_PORT,
      host: values.host ?? env.TOLLGATE_HOST,
      log: output.format === "json" ? (line) => io.printLine(jsonLogLine(line)) : io.printLine,
      ...(promptScripts !== undefined ? { promptScripts } : {}),
      ...(chunkDelayMs !== undefined ? { streamChunkDelayMs: chunkDelayMs } : {}),
      ...(env.TOLLGATE_MODEL_SERVER_MAX_RECORDED_REQUESTS !== undefined
        ? { maxRecordedRequests: env.TOLLGATE_MODEL_SERVER_MAX_RECORDED_REQUESTS }
        : {}),
    });
    await server.closed;
    return 0;
  },
});

/** A line as JSON, with the fields a pino line of the API and the worker has. */
function jsonLogLine(message: string): string {
  return JSON.stringify({ time: new Date().toISOString(), name: "tollgate-model-server", msg: message });
}

/** The --scripts file's rules, checked now: a mistake in the file stops the command with its place. */
async function readPromptScripts(path: string): Promise<Array<{ match: string; script: unknown[] }>> {
  // Imported here: the scripted model's schemas are built at import time, and every `tollgate` command
  // (a worker too) loads this command's module.
  const { parsePromptScripts } = await import("../../model/scripted/prompt-scripts.js");
  try {
    const rules = JSON.parse(readFileSync(path, "utf8")) as Array<{ match: string; script: unknown[] }>;
    parsePromptScripts(rules);
    return rules;
  } catch (error) {
    throw new CliError(
      `could not use the --scripts file ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
