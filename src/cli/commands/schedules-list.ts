import { parseEnv } from "../../config/env.js";
import type { TScheduleView } from "../../contracts/index.js";
import type { ICommand } from "../command.js";
import { defineCommand } from "../define-command.js";
import { integerFlag } from "../flag-values.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatScheduleTable } from "../output/schedule-views.js";

export const schedulesListCommand: ICommand = defineCommand({
  path: "schedules list",
  summary: "list schedules, newest first",
  usage: "[--tenant <tenant>] [--limit <n>] [--cursor <cursor>] [-q]",
  description: `Prints one page of schedules, newest first, and its nextCursor (GET /v1/schedules; TOLLGATE_URL,
TOLLGATE_TOKEN): id, name, when it ticks, paused or not, when its next tick is, ticks fired and skipped.`,
  flags: {
    tenant: { type: "string", value: "<tenant>", help: "this tenant's schedules (a token of every tenant)" },
    limit: { type: "string", value: "<n>", help: "schedules per page, 1 to 500 (default 50)" },
    cursor: {
      type: "string",
      value: "<cursor>",
      help: "the page after the one that returned this nextCursor",
    },
    quiet: { type: "boolean", short: "q", help: "print only the scheduleIds, one a line" },
  },
  async run({ io, values, output }) {
    const query = new URLSearchParams();
    if (values.tenant !== undefined) query.set("tenant", values.tenant);
    if (values.cursor !== undefined) query.set("cursor", values.cursor);
    if (values.limit !== undefined) {
      const limit = integerFlag(schedulesListCommand, "limit", values.limit, { min: 1, max: 500 });
      query.set("limit", String(limit));
    }
    const search = query.size > 0 ? `?${query}` : "";
    const page = await apiClientFromEnv(parseEnv(io.env)).request<{
      schedules: TScheduleView[];
      nextCursor?: string;
    }>({ method: "GET", path: `/v1/schedules${search}` });
    if (values.quiet === true) {
      for (const schedule of page.schedules) io.printLine(schedule.scheduleId);
    } else {
      output.result(page, (listed, view) => formatScheduleTable(listed.schedules, view, listed.nextCursor));
    }
    return 0;
  },
});
