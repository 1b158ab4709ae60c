import { parseEnv } from "../../config/env.js";
import type { TRunSummary } from "../../contracts/index.js";
import type { ICommand } from "../command.js";
import { defineCommand } from "../define-command.js";
import { integerFlag } from "../flag-values.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatRunTable } from "../output/run-views.js";

const flags = {
  status: {
    type: "string",
    value: "<status>",
    help: "queued, running, waiting, completed, failed, cancelled or timed_out",
  },
  user: { type: "string", value: "<userId>", help: "only runs for this user" },
  thread: { type: "string", value: "<threadId>", help: "only runs of this thread" },
  tool: { type: "string", value: "<name>", help: "only runs whose model called this tool" },
  "created-by": { type: "string", value: "<subject>", help: "only runs this token subject created" },
  schedule: { type: "string", value: "<scheduleId>", help: "only runs this schedule's ticks created" },
  since: { type: "string", value: "<time>", help: "created at or after (ISO 8601 or epoch ms)" },
  until: { type: "string", value: "<time>", help: "created at or before (ISO 8601 or epoch ms)" },
  tenant: { type: "string", value: "<tenant>", help: "this tenant's runs (a token of every tenant)" },
  limit: { type: "string", value: "<n>", help: "runs per page, 1 to 500 (default 50)" },
  cursor: { type: "string", value: "<cursor>", help: "the page after the one that returned this nextCursor" },
  quiet: { type: "boolean", short: "q", help: "print only the runIds, one a line" },
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

export const runsListCommand: ICommand = defineCommand({
  path: "runs list",
  summary: "list runs, newest first, by status, user, thread, tool called, creator or time",
  usage: `[--status <status>] [--user <userId>] [--thread <threadId>] [--tool <name>]
                         [--created-by <subject>] [--schedule <scheduleId>] [--since <time>] [--until <time>] [--tenant <tenant>]
                         [--limit <n>] [--cursor <cursor>] [-q]`,
  description: `Prints one page of runs, newest first, and its nextCursor (GET /v1/runs; TOLLGATE_URL, TOLLGATE_TOKEN):
status, user, thread, how long ago it was created, how long it took, model steps, tokens, approvals,
tools called, the input's first line. Every filter is exact. On a narrow terminal the input and the
tools are cut, and the thread, tokens, steps and the other columns after them are left out.`,
  flags,
  async run({ io, values, output }) {
    const query = new URLSearchParams();
    for (const [flag, name] of Object.entries(queryNames)) {
      const value = values[flag as keyof typeof values];
      if (typeof value === "string") query.set(name, value);
    }
    if (values.limit !== undefined) {
      const limit = integerFlag(runsListCommand, "limit", values.limit, { min: 1, max: 500 });
      query.set("limit", String(limit));
    }
    const search = query.size > 0 ? `?${query}` : "";
    const page = await apiClientFromEnv(parseEnv(io.env)).request<IRunPage>({
      method: "GET",
      path: `/v1/runs${search}`,
    });
    if (values.quiet === true) {
      for (const run of page.runs) io.printLine(run.runId);
    } else {
      output.result(page, (listed, view) => formatRunTable(listed.runs, view, listed.nextCursor));
    }
    return 0;
  },
});
