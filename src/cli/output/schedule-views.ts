import type { TScheduleView } from "../../contracts/index.js";
import { formatAge, formatDuration } from "./durations.js";
import { formatDetails, formatTable, type IColumn, time } from "./text-table.js";
import type { IViewContext } from "./view-context.js";

/** When a schedule ticks, as one cell: its cron pattern (and zone) or its interval. */
function timingOf(schedule: TScheduleView): string {
  if (schedule.cron !== undefined)
    return `cron ${schedule.cron}${schedule.timezone ? ` (${schedule.timezone})` : ""}`;
  return `every ${formatDuration(schedule.everyMs ?? 0)}`;
}

function scheduleColumns(view: IViewContext): IColumn<TScheduleView>[] {
  return [
    { header: "schedule", value: (schedule) => schedule.scheduleId },
    { header: "name", value: (schedule) => schedule.name ?? "", shrinks: true, dropRank: 2 },
    { header: "when", value: (schedule) => timingOf(schedule), shrinks: true, minWidth: 16 },
    { header: "state", value: (schedule) => (schedule.paused ? "paused" : "active") },
    { header: "next", value: (schedule) => formatAge(schedule.nextTickAt, view.now), dropRank: 3 },
    {
      header: "fired/skipped",
      value: (schedule) => `${schedule.ticksFired}/${schedule.ticksSkipped}`,
      dropRank: 1,
    },
  ];
}

export function formatScheduleTable(
  schedules: readonly TScheduleView[],
  view: IViewContext,
  nextCursor?: string,
): string[] {
  const lines = formatTable(scheduleColumns(view), schedules, { width: view.width });
  return nextCursor !== undefined ? [...lines, `More: --cursor ${nextCursor}`] : lines;
}

export function formatSchedule(schedule: TScheduleView, view: IViewContext): string[] {
  return formatDetails(
    [
      ["Schedule", schedule.scheduleId],
      ["Name", schedule.name],
      ["Tenant", schedule.tenant],
      ["When", timingOf(schedule)],
      ["Overlap", schedule.overlap],
      ["State", schedule.paused ? "paused" : "active"],
      [
        "Next tick",
        schedule.nextTickAt !== undefined
          ? `${time(schedule.nextTickAt)} (${formatAge(schedule.nextTickAt, view.now)})`
          : undefined,
      ],
      ["Ticks", `${schedule.ticksFired} fired, ${schedule.ticksSkipped} skipped`],
      ["Input", String(schedule.request.input ?? "")],
    ],
    view.width,
  );
}
