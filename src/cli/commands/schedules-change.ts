import { parseEnv } from "../../config/env.js";
import type { TScheduleView } from "../../contracts/index.js";
import type { ICommand } from "../command.js";
import { printHelp, printResult } from "../command-output.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { outputFlags, outputFormatOf, outputHelp, outputRule } from "../output/output-format.js";
import { formatSchedule } from "../output/schedule-views.js";
import { parseCommandArgs } from "../parse-command-args.js";

const flags = { ...outputFlags } as const;

/** `schedules pause|resume|delete <scheduleId>`: one request each, the same shape. */
function scheduleChangeCommand(
  action: "pause" | "resume" | "delete",
  summary: string,
  detail: string,
): ICommand {
  const command: ICommand = {
    path: `schedules ${action}`,
    summary,
    help: `Usage: tollgate schedules ${action} <scheduleId>

${detail} (TOLLGATE_URL, TOLLGATE_TOKEN).

${outputRule}

Options:
${outputHelp}
  -h, --help                show this help
`,
    async run(args, io) {
      const parsed = parseCommandArgs(command, args, flags, { names: ["scheduleId"], required: 1 });
      if (parsed === "help") return printHelp(io, command);
      const format = outputFormatOf(command, parsed.values, io);
      const [scheduleId = ""] = parsed.positionals;
      const path = `/v1/schedules/${encodeURIComponent(scheduleId)}`;
      const api = apiClientFromEnv(parseEnv(io.env));
      if (action === "delete") {
        const deleted = await api.request<{ scheduleId: string; deleted: true }>({ method: "DELETE", path });
        printResult(io, format, deleted, () => [`Deleted schedule ${deleted.scheduleId}`]);
        return 0;
      }
      const schedule = await api.request<TScheduleView>({ method: "POST", path: `${path}/${action}` });
      printResult(io, format, schedule, formatSchedule);
      return 0;
    },
  };
  return command;
}

export const schedulesPauseCommand = scheduleChangeCommand(
  "pause",
  "pause a schedule: no tick starts a run until it is resumed",
  "Pauses the schedule through POST /v1/schedules/:scheduleId/pause",
);

export const schedulesResumeCommand = scheduleChangeCommand(
  "resume",
  "resume a paused schedule",
  "Resumes the schedule through POST /v1/schedules/:scheduleId/resume (an --every schedule ticks at once)",
);

export const schedulesDeleteCommand = scheduleChangeCommand(
  "delete",
  "delete a schedule (its runs stay)",
  "Deletes the schedule through DELETE /v1/schedules/:scheduleId",
);
