import { z } from "zod";

/**
 * What a tick does when a run of the same schedule has not finished: `skip` drops the tick (counted, with
 * a `tick-skipped` entry), `queue` keeps it until that run finishes, then starts its run.
 */
export const scheduleOverlapSchema = z.enum(["skip", "queue"]);
export type TScheduleOverlap = z.infer<typeof scheduleOverlapSchema>;

export const scheduleRecordVersion = 1;

/**
 * A schedule as stored (`<prefix>:schedule:<id>`, field `record`): written once when it is created and
 * never rewritten; whether it is paused and its tick counters are fields of their own beside it.
 * `request` is the run request as validated at creation (the tenant and creator already set), enqueued
 * again at each tick; it is validated again then, through the same path as `POST /v1/runs`.
 */
export const scheduleRecordSchema = z.object({
  schemaVersion: z.literal(scheduleRecordVersion),
  scheduleId: z.string(),
  tenant: z.string(),
  createdBy: z.string().optional(),
  name: z.string().optional(),
  /** A cron pattern (5 fields, or 6 with seconds), read by BullMQ's job scheduler; or `everyMs`. */
  cron: z.string().optional(),
  everyMs: z.number().int().optional(),
  /** IANA time zone of `cron`; absent: UTC. */
  timezone: z.string().optional(),
  overlap: scheduleOverlapSchema,
  request: z.record(z.string(), z.unknown()),
  createdAt: z.number(),
});
export type TScheduleRecord = z.infer<typeof scheduleRecordSchema>;

/** How one tick ended: a run fired, or skipped (a run of the schedule still going, or the run refused). */
export const scheduleTickSchema = z.object({
  /** The tick's time (epoch ms), as BullMQ's scheduler named it. */
  tickAt: z.number(),
  outcome: z.enum(["fired", "skipped"]),
  /** The run the tick started, or the unfinished run it overlapped. */
  runId: z.string().optional(),
  /** Why a tick was skipped: `overlap`, or the code a refused run got (TG_RATE_LIMITED, ...). */
  reason: z.string().optional(),
  /** When the outcome was recorded (epoch ms). */
  at: z.number(),
});
export type TScheduleTick = z.infer<typeof scheduleTickSchema>;

/** A schedule as the API and the client show it. */
export const scheduleViewSchema = scheduleRecordSchema.omit({ schemaVersion: true }).extend({
  paused: z.boolean(),
  /** When the next tick is due (epoch ms); absent while paused. */
  nextTickAt: z.number().optional(),
  ticksFired: z.number().int().min(0),
  ticksSkipped: z.number().int().min(0),
  /** The latest ticks, newest first (at most 20). */
  recentTicks: z.array(scheduleTickSchema),
});
export type TScheduleView = z.infer<typeof scheduleViewSchema>;
