import { parseEnv } from "../../config/env.js";
import type { ICommand } from "../command.js";
import { defineCommand } from "../define-command.js";

export const demoCommand: ICommand = defineCommand({
  path: "demo",
  summary: "run the support-desk demo end to end and print its transcript",
  usage: "",
  description: `Runs the support-desk example (examples/support-desk/gateway.ts) end to end in this process: the
model, a worker and the HTTP API on a queue prefix of its own, with a small MCP server it starts
(stdio, shipped in the package, mounted as "warehouse"), then six conversations through the HTTP
API, printed as a transcript: parallel tool calls, a stock check by the MCP server's tool
(warehouse__check_stock), a refund refused by the policy, a refund
parked for approval and approved with an edited amount, an email rejected by the reviewer, and a
hand-over that ends the run. Everything it started is stopped and its Redis keys deleted at the end.`,
  flags: {},
  formats: "the transcript, or a JSON object per run",
  whenPiped: "table",
  notes: `Redis: REDIS_URL when set; else 127.0.0.1:6379 when a Redis answers there; else a private
redis-server (needs redis-server installed) on a free port, stopped at the end.
Model: the built-in scripted model, or a real one when OPENAI_API_KEY is set (then the runs are
plain prompts and the model decides; OPENAI_BASE_URL and TOLLGATE_MODEL apply).`,
  async run({ io, output }) {
    const env = parseEnv(io.env);
    // Loaded only now: the demo imports the whole system, --help should not.
    const { runDemo } = await import("../demo/run-demo.js");
    return runDemo(io, env, output.format);
  },
});
