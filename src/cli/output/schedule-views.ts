import type { TScheduleView } from "../../contracts/index.js";
import { cell, formatDetails, formatTable, time } from "./text-table.js";

/** When a schedule ticks, as one cell: its cron pattern (and zone) or its interval. */
function timingOf(schedule: TScheduleView): string {
  if (schedule.cron !== undefined)
    return `cron ${schedule.cron}${schedule.timezone ? ` (${schedule.timezone})` : ""}`;
  return `every ${schedule.everyMs} ms`;
}

export function formatScheduleTable(schedules: readonly TScheduleView[], nextCursor?: string): string[] {
  const lines = formatTable(
    [
      { header: "SCHEDULE", value: (schedule: TScheduleView) => schedule.scheduleId },
      { header: "NAME", value: (schedule: TScheduleView) => cell(schedule.name ?? "", 30) },
      { header: "WHEN", value: (schedule: TScheduleView) => cell(timingOf(schedule), 40) },
      { header: "STATE", value: (schedule: TScheduleView) => (schedule.paused ? "paused" : "active") },
      { header: "NEXT", value: (schedule: TScheduleView) => time(schedule.nextTickAt) },
      {
        header: "FIRED/SKIPPED",
        value: (schedule: TScheduleView) => `${schedule.ticksFired}/${schedule.ticksSkipped}`,
      },
    ],
    schedules,
  );
  return nextCursor !== undefined ? [...lines, `More: --cursor ${nextCursor}`] : lines;
}

export function formatSchedule(schedule: TScheduleView): string[] {
  return formatDetails([
    ["Schedule", schedule.scheduleId],
    ["Name", schedule.name],
    ["Tenant", schedule.tenant],
    ["When", timingOf(schedule)],
    ["Overlap", schedule.overlap],
    ["State", schedule.paused ? "paused" : "active"],
    ["Next tick", schedule.nextTickAt !== undefined ? time(schedule.nextTickAt) : undefined],
    ["Ticks", `${schedule.ticksFired} fired, ${schedule.ticksSkipped} skipped`],
    ["Input", cell(String(schedule.request.input ?? ""), 80)],
  ]);
}
