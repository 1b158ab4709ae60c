import type { TScheduleRecord } from "../contracts/index.js";
import { runJobNames, type TScheduleTickJob } from "../queue/index.js";
import type { ITollgateRuntime } from "./runtime.js";
import { repeatOptionsOf } from "./schedule-timing.js";

/**
 * Puts a schedule's BullMQ job scheduler on its partition's runs queue (id: the schedule's id). BullMQ
 * keeps one scheduler per id and one delayed job per tick (`repeat:<id>:<millis>`); the next tick's job is
 * added when a worker takes the current one, once, whichever worker does. Upserting again (a resume)
 * replaces the scheduler and its next job.
 */
export async function upsertScheduler(runtime: ITollgateRuntime, record: TScheduleRecord): Promise<void> {
  const ageSeconds = Math.ceil(runtime.options.retentionMs / 1000);
  const data: TScheduleTickJob = { schemaVersion: 1, scheduleId: record.scheduleId };
  await runtime.queues.runs.upsertJobScheduler(record.scheduleId, repeatOptionsOf(record), {
    name: runJobNames.scheduleTick,
    data,
    opts: {
      // A tick's run has an id derived from the tick, so a retried tick finds the run it created.
      attempts: 5,
      backoff: { type: "exponential", delay: runtime.options.jobBackoffMs },
      removeOnComplete: true,
      removeOnFail: { age: ageSeconds },
    },
  });
}

/** Removes the schedule's job scheduler and its next tick's job (a tick already running finishes). */
export async function removeScheduler(runtime: ITollgateRuntime, scheduleId: string): Promise<void> {
  await runtime.queues.runs.removeJobScheduler(scheduleId);
}

/** When the scheduler's next tick is due; undefined without one (paused, deleted). */
export async function nextTickOf(runtime: ITollgateRuntime, scheduleId: string): Promise<number | undefined> {
  const scheduler = await runtime.queues.runs.getJobScheduler(scheduleId);
  return scheduler?.next ?? undefined;
}
