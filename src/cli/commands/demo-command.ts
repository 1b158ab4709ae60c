import { parseEnv } from "../../config/env.js";
import type { ICommand } from "../command.js";
import { printHelp } from "../command-output.js";
import { parseCommandArgs } from "../parse-command-args.js";

export const demoCommand: ICommand = {
  path: "demo",
  summary: "run the support-desk demo end to end and print its transcript",
  help: `Usage: tollgate demo

Runs the support-desk example (examples/support-desk/gateway.ts) end to end in this process: the
model, a worker and the HTTP API on a queue prefix of its own, with a small MCP server it starts
(stdio, shipped in the package, mounted as "warehouse"), then six conversations through the HTTP
API, printed as a transcript: parallel tool calls, a stock check by the MCP server's tool
(warehouse__check_stock), a refund refused by the policy, a refund
parked for approval and approved with an edited amount, an email rejected by the reviewer, and a
hand-over that ends the run. Everything it started is stopped and its Redis keys deleted at the end.

Redis: REDIS_URL when set; else 127.0.0.1:6379 when a Redis answers there; else a private
redis-server (needs redis-server installed) on a free port, stopped at the end.
Model: the built-in scripted model, or a real one when OPENAI_API_KEY is set (then the runs are
plain prompts and the model decides; OPENAI_BASE_URL and TOLLGATE_MODEL apply).

Options:
  -h, --help  show this help
`,
  async run(args, io) {
    const parsed = parseCommandArgs(demoCommand, args, {});
    if (parsed === "help") return printHelp(io, demoCommand);
    const env = parseEnv(io.env);
    // Loaded only now: the demo imports the whole system, --help should not.
    const { runDemo } = await import("../demo/run-demo.js");
    return runDemo(io, env);
  },
};
