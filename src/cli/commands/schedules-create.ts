import { parseEnv } from "../../config/env.js";
import type { TScheduleView } from "../../contracts/index.js";
import { UsageError } from "../cli-errors.js";
import type { ICommand } from "../command.js";
import { printHelp, printResult } from "../command-output.js";
import { integerFlag, jsonFlag, listFlag } from "../flag-values.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { outputFlags, outputFormatOf, outputHelp, outputRule } from "../output/output-format.js";
import { formatSchedule } from "../output/schedule-views.js";
import { parseCommandArgs } from "../parse-command-args.js";

const flags = {
  cron: { type: "string" },
  every: { type: "string" },
  timezone: { type: "string" },
  name: { type: "string" },
  overlap: { type: "string" },
  user: { type: "string" },
  tools: { type: "string" },
  model: { type: "string" },
  request: { type: "string" },
  quiet: { type: "boolean", short: "q" },
  ...outputFlags,
} as const;

export const schedulesCreateCommand: ICommand = {
  path: "schedules create",
  summary: "schedule a run request on a cron pattern or an interval",
  help: `Usage: tollgate schedules create (--cron <pattern> [--timezone <zone>] | --every <ms>) [options] <input>

Creates a schedule through POST /v1/schedules (TOLLGATE_URL, TOLLGATE_TOKEN): each tick enqueues one
run of <input> ("-" reads it from standard input). The request is checked now, as runs submit's is.

${outputRule}

Options:
  --cron <pattern>          a cron pattern, e.g. "0 3 * * *" (6 fields: seconds first)
  --timezone <zone>         the pattern's IANA time zone, e.g. Europe/Paris (default UTC)
  --every <ms>              a tick every this many milliseconds instead (the first at once)
  --name <name>             a name to recognise the schedule by
  --overlap <skip|queue>    a tick while the previous run is unfinished: skip it (default) or queue it
  --user <id>               the user's id (userContext.userId) (default: "cli")
  --tools <a,b>             narrow the gateway's default tools to these
  --model <name>            one of the gateway's named models
  --request <json>          more of the run request (POST /v1/runs's body), merged under the flags
  -q, --quiet               print only the scheduleId
${outputHelp}
  -h, --help                show this help
`,
  async run(args, io) {
    const command = schedulesCreateCommand;
    const parsed = parseCommandArgs(command, args, flags, { names: ["input"], required: 1 });
    if (parsed === "help") return printHelp(io, command);
    const { values } = parsed;
    const format = outputFormatOf(command, values, io);
    if ((values.cron === undefined) === (values.every === undefined)) {
      throw new UsageError("give --cron or --every (one of them)", command.path);
    }
    if (values.overlap !== undefined && values.overlap !== "skip" && values.overlap !== "queue") {
      throw new UsageError("--overlap is skip or queue", command.path);
    }
    const [inputArgument = ""] = parsed.positionals;
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
    else printResult(io, format, schedule, formatSchedule);
    return 0;
  },
};
