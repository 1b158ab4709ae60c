import { parseEnv } from "../../config/env.js";
import type { ICommand } from "../command.js";
import { printHelp, printJson } from "../command-output.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { parseCommandArgs } from "../parse-command-args.js";

const flags = {
  run: { type: "string" },
  tool: { type: "string" },
  user: { type: "string" },
} as const;

export const approvalsListCommand: ICommand = {
  path: "approvals list",
  summary: "list the pending approvals",
  help: `Usage: tollgate approvals list [--run <runId>] [--tool <name>] [--user <userId>]

Prints the pending approvals, oldest expiry first (GET /v1/approvals; TOLLGATE_URL, TOLLGATE_TOKEN).

Options:
  --run <runId>    only this run's
  --tool <name>    only calls of this tool
  --user <userId>  only calls made for this user
  -h, --help       show this help
`,
  async run(args, io) {
    const parsed = parseCommandArgs(approvalsListCommand, args, flags);
    if (parsed === "help") return printHelp(io, approvalsListCommand);
    const query = new URLSearchParams();
    if (parsed.values.run !== undefined) query.set("runId", parsed.values.run);
    if (parsed.values.tool !== undefined) query.set("tool", parsed.values.tool);
    if (parsed.values.user !== undefined) query.set("userId", parsed.values.user);
    const search = query.size > 0 ? `?${query}` : "";
    const approvals = await apiClientFromEnv(parseEnv(io.env)).request({
      method: "GET",
      path: `/v1/approvals${search}`,
    });
    printJson(io, approvals);
    return 0;
  },
};
