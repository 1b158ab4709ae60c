import { parseEnv } from "../../config/env.js";
import type { TScheduleView } from "../../contracts/index.js";
import { UsageError } from "../cli-errors.js";
import type { ICommand } from "../command.js";
import { defineCommand } from "../define-command.js";
import { integerFlag, jsonFlag, listFlag } from "../flag-values.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatSchedule } from "../output/schedule-views.js";

export const schedulesCreateCommand: ICommand = defineCommand({
  path: "schedules create",
  summary: "schedule a run request on a cron pattern or an interval",
  usage: "(--cron <pattern> [--timezone <zone>] | --every <ms>) [options] <input>",
  description: `Creates a schedule through POST /v1/schedules (TOLLGATE_URL, TOLLGATE_TOKEN): each tick enqueues one
run of <input> ("-" reads it from standard input). The request is checked now, as runs submit's is.`,
  flags: {
    cron: {
      type: "string",
      value: "<pattern>",
      help: 'a cron pattern, e.g. "0 3 * * *" (6 fields: seconds first)',
    },
    timezone: {
      type: "string",
      value: "<zone>",
      help: "the pattern's IANA time zone, e.g. Europe/Paris (default UTC)",
    },
    every: {
      type: "string",
      value: "<ms>",
      help: "a tick every this many milliseconds instead (the first at once)",
    },
    name: { type: "string", value: "<name>", help: "a name to recognise the schedule by" },
    overlap: {
      type: "string",
      value: "<skip|queue>",
      help: "a tick while the previous run is unfinished: skip it (default) or queue it",
    },
    user: { type: "string", value: "<id>", help: 'the user\'s id (userContext.userId) (default: "cli")' },
    tools: { type: "string", value: "<a,b>", help: "narrow the gateway's default tools to these" },
    model: { type: "string", value: "<name>", help: "one of the gateway's named models" },
    request: {
      type: "string",
      value: "<json>",
      help: "more of the run request (POST /v1/runs's body), merged under the flags",
    },
    quiet: { type: "boolean", short: "q", help: "print only the scheduleId" },
  },
  positionals: { names: ["input"], required: 1 },
  async run({ io, values, positionals, output }) {
    const command = schedulesCreateCommand;
    if ((values.cron === undefined) === (values.every === undefined)) {
      throw new UsageError("give --cron or --every (one of them)", command.path);
    }
    if (values.overlap !== undefined && values.overlap !== "skip" && values.overlap !== "queue") {
      throw new UsageError("--overlap is skip or queue", command.path);
    }
    const [inputArgument = ""] = positionals;
    const input = inputArgument === "-" ? (await io.readStandardInput()).trimEnd() : inputArgument;
    const extra = values.request !== undefined ? jsonFlag(command, "request", values.request) : {};
    if (typeof extra !== "object" || extra === null || Array.isArray(extra)) {
      throw new UsageError("--request must be a JSON object", command.path);
    }
    const request: Record<string, unknown> = {
      ...(extra as Record<string, unknown>),
      input,
      userContext: { userId: values.user ?? "cli" },
      ...(values.tools !== undefined ? { tools: listFlag(values.tools) } : {}),
      ...(values.model !== undefined ? { model: values.model } : {}),
    };
    if (values.user === undefined && "userContext" in (extra as Record<string, unknown>)) {
      request.userContext = (extra as Record<string, unknown>).userContext;
    }
    const body = {
      ...(values.cron !== undefined ? { cron: values.cron } : {}),
      ...(values.every !== undefined
        ? { everyMs: integerFlag(command, "every", values.every, { min: 1, max: Number.MAX_SAFE_INTEGER }) }
        : {}),
      ...(values.timezone !== undefined ? { timezone: values.timezone } : {}),
      ...(values.name !== undefined ? { name: values.name } : {}),
      ...(values.overlap !== undefined ? { overlap: values.overlap } : {}),
      request,
    };
    const schedule = await apiClientFromEnv(parseEnv(io.env)).request<TScheduleView>({
      method: "POST",
      path: "/v1/schedules",
      body,
    });
    if (values.quiet === true) io.printLine(schedule.scheduleId);
    else output.result(schedule, formatSchedule);
    return 0;
  },
});
