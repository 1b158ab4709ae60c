import { getNextMillis, type RepeatOptions } from "bullmq";
import type { TScheduleRecord } from "../contracts/index.js";
import { type IFieldIssue, TollgateError } from "../errors/index.js";

/** The repeat options BullMQ's job scheduler is given for a schedule. */
export function repeatOptionsOf(
  record: Pick<TScheduleRecord, "cron" | "everyMs" | "timezone">,
): RepeatOptions {
  if (record.everyMs !== undefined) return { every: record.everyMs };
  return { pattern: record.cron!, ...(record.timezone !== undefined ? { tz: record.timezone } : {}) };
}

/**
 * The time between two ticks: `everyMs`, or for a cron pattern the shortest gap among its next few ticks
 * (read with BullMQ's own parser, so a pattern it accepts here is one it will run). A pattern or time zone
 * it cannot read, or a pattern that never fires, is refused (422) naming the field.
 */
export function tickIntervalOf(
  timing: Pick<TScheduleRecord, "cron" | "everyMs" | "timezone">,
  now: number,
): number {
  if (timing.everyMs !== undefined) return timing.everyMs;
  if (timing.timezone !== undefined && !isTimeZone(timing.timezone)) {
    throw invalidTiming({ path: "timezone", message: `unknown time zone "${timing.timezone}"` });
  }
  const repeat = repeatOptionsOf(timing);
  const ticks: number[] = [];
  let from = now;
  try {
    for (let count = 0; count < 4; count++) {
      const next = getNextMillis(from, repeat);
      if (next === undefined || !Number.isFinite(next)) break;
      ticks.push(next);
      from = next;
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw invalidTiming({ path: "cron", message: `not a cron pattern BullMQ reads: ${message}` });
  }
  if (ticks.length < 2) throw invalidTiming({ path: "cron", message: "the pattern never fires" });
  let shortest = Number.POSITIVE_INFINITY;
  for (let at = 1; at < ticks.length; at++) shortest = Math.min(shortest, ticks[at]! - ticks[at - 1]!);
  return shortest;
}

function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone });
    return true;
  } catch {
    return false;
  }
}

function invalidTiming(issue: IFieldIssue): TollgateError {
  return new TollgateError("TG_INVALID_REQUEST", `Invalid schedule: ${issue.path}: ${issue.message}`, {
    issues: [issue],
  });
}

/** The tick's time from its job id (`repeat:<scheduleId>:<millis>`, BullMQ's), else undefined. */
export function tickTimeOfJobId(jobId: string | undefined): number | undefined {
  const millis = jobId?.slice(jobId.lastIndexOf(":") + 1);
  const tickAt = Number(millis);
  return millis !== undefined && millis !== "" && Number.isSafeInteger(tickAt) ? tickAt : undefined;
}
