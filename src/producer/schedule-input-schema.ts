import { z } from "zod";
import { scheduleOverlapSchema } from "../contracts/index.js";
import { runInputSchema } from "./run-input-schema.js";

/** The shortest `everyMs`: a schedule is not a busy loop. */
export const minScheduleEveryMs = 100;

/** The longest `everyMs`: a year. */
export const maxScheduleEveryMs = 366 * 24 * 60 * 60 * 1000;

/**
 * What makes a schedule besides its run request: when (`cron` with an optional `timezone`, or `everyMs`),
 * a name, and what a tick does while the schedule's previous run has not finished. Whether the cron
 * pattern and the time zone can be read is checked when the schedule is created, by BullMQ's own parser.
 */
export const scheduleTimingShape = {
  cron: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("A cron pattern (5 fields, or 6 with seconds first), as BullMQ's job schedulers read it."),
  everyMs: z
    .number()
    .int()
    .min(minScheduleEveryMs)
    .max(maxScheduleEveryMs)
    .optional()
    .describe("A tick every this many milliseconds (the first at once); instead of `cron`."),
  timezone: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe("The IANA time zone of `cron` (`Europe/Paris`); default UTC. Not with `everyMs`."),
  name: z.string().min(1).max(200).optional().describe("A name people recognise the schedule by."),
  overlap: scheduleOverlapSchema
    .optional()
    .describe(
      "A tick while the schedule's previous run has not finished: `skip` it (counted) or `queue` it " +
        "until that run finishes. Default `skip`.",
    ),
};

/** Exactly one of `cron` and `everyMs`; a time zone only with `cron`. */
export function refineScheduleTiming(
  value: { cron?: string | undefined; everyMs?: number | undefined; timezone?: string | undefined },
  context: z.RefinementCtx,
): void {
  if ((value.cron === undefined) === (value.everyMs === undefined)) {
    context.addIssue({ code: "custom", path: ["cron"], message: "give exactly one of cron and everyMs" });
  }
  if (value.timezone !== undefined && value.cron === undefined) {
    context.addIssue({ code: "custom", path: ["timezone"], message: "applies to cron only" });
  }
}

/**
 * A schedule as a library caller creates it: its run request is what `GatewayClient.run` takes, without
 * an idempotency key (each tick's run gets its own, derived from the tick).
 */
export const scheduleInputSchema = z
  .strictObject({
    ...scheduleTimingShape,
    request: runInputSchema.omit({ idempotencyKey: true }),
  })
  .superRefine(refineScheduleTiming);

export type TScheduleInput = z.input<typeof scheduleInputSchema>;
