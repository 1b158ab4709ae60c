import { parseEnv } from "../../config/env.js";
import type { ICommand } from "../command.js";
import { defineCommand } from "../define-command.js";
import { integerFlag, requiredFlag } from "../flag-values.js";

export const apiCommand: ICommand = defineCommand({
  path: "api",
  summary: "serve the HTTP API (runs, events, approvals, tools, /metrics)",
  usage: "--gateway <module> [--port <n>] [--host <address>] [--insecure]",
  description: `Serves the HTTP API for the gateway's runs and approvals. Stops on SIGTERM/SIGINT: no new
connections, open event streams end, requests in flight finish, then the process exits 0.`,
  flags: {
    gateway: {
      type: "string",
      value: "<module>",
      help: "a .js/.mjs or .ts module whose default export is defineGateway(...)",
    },
    port: {
      type: "string",
      value: "<n>",
      help: "port to listen on (default: TOLLGATE_PORT or 3000; 0 picks a free one)",
    },
    host: {
      type: "string",
      value: "<address>",
      help: "address to listen on (default: TOLLGATE_HOST or 127.0.0.1; 0.0.0.0 in containers)",
    },
    insecure: {
      type: "boolean",
      help: "start without API tokens: every request acts as an admin (local use only)",
    },
  },
  formats: "log lines for people (with pino-pretty installed), or JSON lines",
  notes: "Tokens come from TOLLGATE_API_TOKENS or TOLLGATE_API_TOKENS_FILE (docs/CONFIGURATION.md).",
  async run({ io, values, output }) {
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
      ...(output.asked !== undefined ? { prettyLogs: output.asked === "table" } : {}),
    });
  },
});
