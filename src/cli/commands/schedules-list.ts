import { parseEnv } from "../../config/env.js";
import type { TScheduleView } from "../../contracts/index.js";
import type { ICommand } from "../command.js";
import { printHelp, printResult } from "../command-output.js";
import { integerFlag } from "../flag-values.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { outputFlags, outputFormatOf, outputHelp, outputRule } from "../output/output-format.js";
import { formatScheduleTable } from "../output/schedule-views.js";
import { parseCommandArgs } from "../parse-command-args.js";

const flags = {
  tenant: { type: "string" },
  limit: { type: "string" },
  cursor: { type: "string" },
  quiet: { type: "boolean", short: "q" },
  ...outputFlags,
} as const;

export const schedulesListCommand: ICommand = {
  path: "schedules list",
  summary: "list schedules, newest first",
  help: `Usage: tollgate schedules list [--tenant <tenant>] [--limit <n>] [--cursor <cursor>] [-q]

Prints one page of schedules, newest first, and its nextCursor (GET /v1/schedules; TOLLGATE_URL,
TOLLGATE_TOKEN): id, name, when it ticks, paused or not, its next tick, ticks fired and skipped.

${outputRule}

Options:
  --tenant <tenant>         this tenant's schedules (a token of every tenant)
  --limit <n>               schedules per page, 1 to 500 (default 50)
  --cursor <cursor>         the page after the one that returned this nextCursor
  -q, --quiet               print only the scheduleIds, one a line
${outputHelp}
  -h, --help                show this help
`,
  async run(args, io) {
    const parsed = parseCommandArgs(schedulesListCommand, args, flags);
    if (parsed === "help") return printHelp(io, schedulesListCommand);
    const format = outputFormatOf(schedulesListCommand, parsed.values, io);
    const query = new URLSearchParams();
    if (parsed.values.tenant !== undefined) query.set("tenant", parsed.values.tenant);
    if (parsed.values.cursor !== undefined) query.set("cursor", parsed.values.cursor);
    if (parsed.values.limit !== undefined) {
      const limit = integerFlag(schedulesListCommand, "limit", parsed.values.limit, { min: 1, max: 500 });
      query.set("limit", String(limit));
    }
    const search = query.size > 0 ? `?${query}` : "";
    const page = await apiClientFromEnv(parseEnv(io.env)).request<{
      schedules: TScheduleView[];
      nextCursor?: string;
    }>({ method: "GET", path: `/v1/schedules${search}` });
    if (parsed.values.quiet === true) {
      for (const schedule of page.schedules) io.printLine(schedule.scheduleId);
    } else {
      printResult(io, format, page, () => formatScheduleTable(page.schedules, page.nextCursor));
    }
    return 0;
  },
};
