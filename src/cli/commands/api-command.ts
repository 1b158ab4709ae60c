import { parseEnv } from "../../config/env.js";
import type { ICommand } from "../command.js";
import { printHelp } from "../command-output.js";
import { integerFlag, requiredFlag } from "../flag-values.js";
import { parseCommandArgs } from "../parse-command-args.js";

const flags = {
  gateway: { type: "string" },
  port: { type: "string" },
  host: { type: "string" },
  insecure: { type: "boolean" },
} as const;

export const apiCommand: ICommand = {
  path: "api",
  summary: "serve the HTTP API (runs, events, approvals, tools, /metrics)",
  help: `Usage: tollgate api --gateway <module> [--port <n>] [--host <address>] [--insecure]

Serves the HTTP API for the gateway's runs and approvals. Stops on SIGTERM/SIGINT: no new
connections, open event streams end, requests in flight finish, then the process exits 0.

Options:
  --gateway <module>  a .js/.mjs or .ts module whose default export is defineGateway(...)
  --port <n>          port to listen on (default: TOLLGATE_PORT or 3000; 0 picks a free one)
  --host <address>    address to listen on (default: TOLLGATE_HOST or 127.0.0.1; 0.0.0.0 in containers)
  --insecure          start without API tokens: every request acts as an admin (local use only)
  -h, --help          show this help

Tokens come from TOLLGATE_API_TOKENS or TOLLGATE_API_TOKENS_FILE (docs/CONFIGURATION.md).
`,
  async run(args, io) {
    const parsed = parseCommandArgs(apiCommand, args, flags);
    if (parsed === "help") return printHelp(io, apiCommand);
    const { values } = parsed;
    const gatewayPath = requiredFlag(apiCommand, "gateway", values.gateway);
    const port =
      values.port !== undefined
        ? integerFlag(apiCommand, "port", values.port, { min: 0, max: 65_535 })
        : undefined;
    const env = parseEnv(io.env);
    // Loaded only now: the HTTP server and the queue runtime take seconds to import, --help should not.
    const { serveApi } = await import("../serve/serve-api.js");
    return serveApi(io, env, {
      gatewayPath,
      port: port ?? env.TOLLGATE_PORT,
      host: values.host ?? env.TOLLGATE_HOST,
      insecure: values.insecure === true,
    });
  },
};
