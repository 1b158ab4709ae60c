import { parseEnv } from "../../config/env.js";
import type { TScheduleView } from "../../contracts/index.js";
import type { ICommand } from "../command.js";
import { defineCommand } from "../define-command.js";
import { apiClientFromEnv } from "../http/api-client.js";
import { formatSchedule } from "../output/schedule-views.js";

/** `schedules pause|resume|delete <scheduleId>`: one request each, the same shape. */
function scheduleChangeCommand(
  action: "pause" | "resume" | "delete",
  summary: string,
  detail: string,
): ICommand {
  return defineCommand({
    path: `schedules ${action}`,
    summary,
    usage: "<scheduleId>",
    description: `${detail} (TOLLGATE_URL, TOLLGATE_TOKEN).`,
    flags: {},
    positionals: { names: ["scheduleId"], required: 1 },
    async run({ io, positionals, output }) {
      const [scheduleId = ""] = positionals;
      const path = `/v1/schedules/${encodeURIComponent(scheduleId)}`;
      const api = apiClientFromEnv(parseEnv(io.env));
      if (action === "delete") {
        const deleted = await api.request<{ scheduleId: string; deleted: true }>({ method: "DELETE", path });
        output.result(deleted, (gone) => [`Deleted schedule ${gone.scheduleId}`]);
        return 0;
      }
      const schedule = await api.request<TScheduleView>({ method: "POST", path: `${path}/${action}` });
      output.result(schedule, formatSchedule);
      return 0;
    },
  });
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
