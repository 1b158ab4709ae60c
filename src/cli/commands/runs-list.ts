import { parseEnv } from "../../config/env.js";
import type { TRunSummary } from "../../contracts/index.js";
import type { ICommand } from "../command.js";
import { printHelp, printResult } from "../command-output.js";
import { integerFlag } from "../flag-values.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { outputFlags, outputFormatOf, outputHelp, outputRule } from "../output/output-format.js";
import { formatRunTable } from "../output/run-views.js";
import { parseCommandArgs } from "../parse-command-args.js";

const flags = {
  status: { type: "string" },
  user: { type: "string" },
  thread: { type: "string" },
  tool: { type: "string" },
  "created-by": { type: "string" },
  schedule: { type: "string" },
  since: { type: "string" },
  until: { type: "string" },
  tenant: { type: "string" },
  limit: { type: "string" },
  cursor: { type: "string" },
  quiet: { type: "boolean", short: "q" },
  ...outputFlags,
} as const;

interface IRunPage {
  runs: TRunSummary[];
  nextCursor?: string;
}

/** Flag → query parameter of GET /v1/runs. */
const queryNames: Record<string, string> = {
  status: "status",
  user: "userId",
  thread: "threadId",
  tool: "tool",
  "created-by": "createdBy",
  schedule: "scheduleId",
  since: "since",
  until: "until",
  tenant: "tenant",
  cursor: "cursor",
};

export const runsListCommand: ICommand = {
  path: "runs list",
  summary: "list runs, newest first, by status, user, thread, tool called, creator or time",
  help: `Usage: tollgate runs list [--status <status>] [--user <userId>] [--thread <threadId>] [--tool <name>]
                         [--created-by <subject>] [--schedule <scheduleId>] [--since <time>] [--until <time>] [--tenant <tenant>]
                         [--limit <n>] [--cursor <cursor>] [-q]

Prints one page of runs, newest first, and its nextCursor (GET /v1/runs; TOLLGATE_URL, TOLLGATE_TOKEN):
status, user, thread, when, how long, model steps, tokens, approvals, tools called, the input's first
line. Every filter is exact.

${outputRule}

Options:
  --status <status>         queued, running, waiting, completed, failed, cancelled or timed_out
  --user <userId>           only runs for this user
  --thread <threadId>       only runs of this thread
  --tool <name>             only runs whose model called this tool
  --created-by <subject>    only runs this token subject created
  --schedule <scheduleId>   only runs this schedule's ticks created
  --since <time>            created at or after (ISO 8601 or epoch ms)
  --until <time>            created at or before (ISO 8601 or epoch ms)
  --tenant <tenant>         this tenant's runs (a token of every tenant)
  --limit <n>               runs per page, 1 to 500 (default 50)
  --cursor <cursor>         the page after the one that returned this nextCursor
  -q, --quiet               print only the runIds, one a line
${outputHelp}
  -h, --help                show this help
`,
  async run(args, io) {
    const parsed = parseCommandArgs(runsListCommand, args, flags);
    if (parsed === "help") return printHelp(io, runsListCommand);
    const format = outputFormatOf(runsListCommand, parsed.values, io);
    const query = new URLSearchParams();
    for (const [flag, name] of Object.entries(queryNames)) {
      const value = parsed.values[flag as keyof typeof parsed.values];
      if (typeof value === "string") query.set(name, value);
    }
    if (parsed.values.limit !== undefined) {
      const limit = integerFlag(runsListCommand, "limit", parsed.values.limit, { min: 1, max: 500 });
      query.set("limit", String(limit));
    }
    const search = query.size > 0 ? `?${query}` : "";
    const page = await apiClientFromEnv(parseEnv(io.env)).request<IRunPage>({
      method: "GET",
      path: `/v1/runs${search}`,
    });
    if (parsed.values.quiet === true) {
      for (const run of page.runs) io.printLine(run.runId);
    } else {
      printResult(io, format, page, () => formatRunTable(page.runs, page.nextCursor));
    }
    return 0;
  },
};
