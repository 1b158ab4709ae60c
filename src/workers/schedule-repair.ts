import { randomUUID } from "node:crypto";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import { removeScheduler, upsertScheduler } from "../runtime/schedule-jobs.js";
import { reconcileSchedulerId, scheduleReconciler } from "./reconcile-runs.js";
import type { IWorkerContext } from "./worker-context.js";

/** Schedules looked at per pass; a partition with more is walked over several passes. */
const schedulesPerPass = 500;

/** Job states in which a tick's job will still be taken (or is taken now) and adds the next tick. */
const liveTickStates = new Set(["delayed", "waiting", "prioritized", "active", "waiting-children"]);

export type TScheduleRepairReason = "no-next-tick" | "no-scheduler";

export interface IScheduleRepairPass {
  skipped: boolean;
  checked: number;
  repaired: number;
}

/**
 * One schedule repair pass over a partition. A tick's hand-over is two BullMQ scripts: taking the tick's
 * job, then adding the next tick's job and moving the scheduler's `next` to it. A failover that keeps the
 * first and loses the second leaves a scheduler whose `next` tick has no job: nothing would ever tick
 * again. So does a resume interrupted between clearing the flag and upserting the scheduler (no scheduler
 * at all). Each pass looks at the active (not paused) schedules of a bounded slice of the partition and
 * upserts the scheduler of such a schedule again, as a resume does; the reconciler's own scheduler is
 * checked the same way. That cannot start a tick twice: a
 * tick's run id derives from the tick, and an upsert replaces the next job rather than adding one beside
 * it. A lock keeps passes of the fleet from overlapping.
 */
export async function repairSchedules(context: IWorkerContext): Promise<IScheduleRepairPass> {
  const { runtime } = context;
  const interval = runtime.options.scheduleRepairIntervalMs;
  const lock = runtime.keys.scheduleRepairLock();
  const locked = await runtime.redis.set(
    lock,
    randomUUID(),
    "PX",
    Math.max(100, Math.floor(interval * 0.9)),
    "NX",
  );
  const pass: IScheduleRepairPass = { skipped: locked === null, checked: 0, repaired: 0 };
  if (pass.skipped) return pass;
  const cursorKey = runtime.keys.scheduleRepairCursor();
  const start = Number((await runtime.redis.get(cursorKey)) ?? 0);
  const { ids, total } = await runtime.schedules.partitionSlice(start, schedulesPerPass);
  const nextStart = start + ids.length < total ? start + ids.length : 0;
  // A partition whose schedules fit in one pass (the usual case) keeps no cursor.
  if (nextStart === 0) await runtime.redis.del(cursorKey);
  else await runtime.redis.set(cursorKey, String(nextStart), "PX", Math.max(60_000, interval * 10));
  for (const scheduleId of ids) {
    pass.checked += 1;
    try {
      const reason = await repairSchedule(runtime, scheduleId);
      if (reason === undefined) continue;
      pass.repaired += 1;
      context.metrics?.scheduleRepaired(reason, "schedule");
      context.logger.warn(
        { scheduleId, reason },
        "schedule had no next tick (a lost write, or an interrupted resume): its job scheduler upserted again",
      );
    } catch (error) {
      // One schedule that cannot be repaired now must not stop the pass: the next pass tries again.
      context.logger.warn({ err: error, scheduleId }, "schedule repair failed; it tries again");
    }
  }
  await repairReconciler(context, pass);
  return pass;
}

/**
 * The reconciler's own job scheduler can be stranded by the same lost write as a schedule's; no worker
 * would upsert it again before its next start, and lost runs would then wait for a restart to be found.
 * Each pass checks it as it checks a schedule.
 */
async function repairReconciler(context: IWorkerContext, pass: IScheduleRepairPass): Promise<void> {
  try {
    const reason = await missingTickOf(context.runtime, reconcileSchedulerId);
    if (reason === undefined) return;
    await scheduleReconciler(context);
    pass.repaired += 1;
    context.metrics?.scheduleRepaired(reason, "reconciler");
    context.logger.warn(
      { scheduler: reconcileSchedulerId, reason },
      "the reconciler's job scheduler had no next tick (a lost write): upserted again",
    );
  } catch (error) {
    context.logger.warn({ err: error }, "reconciler scheduler repair failed; the next pass tries again");
  }
}

/** Repairs one schedule when it needs it; the reason when it did. */
async function repairSchedule(
  runtime: ITollgateRuntime,
  scheduleId: string,
): Promise<TScheduleRepairReason | undefined> {
  const stored = await runtime.schedules.record(scheduleId);
  if (!stored || stored.paused) return undefined;
  const reason = await missingTickOf(runtime, scheduleId);
  if (reason === undefined) return undefined;
  await upsertScheduler(runtime, stored.record);
  // A pause or a deletion between the read and the upsert removed the scheduler before it came back:
  // remove it again (each sets its flag or deletes the record before removing the scheduler).
  const after = await runtime.schedules.record(scheduleId);
  if (!after || after.paused) await removeScheduler(runtime, scheduleId);
  return reason;
}

/**
 * Why the schedule will not tick again, or undefined when its next tick's job exists and will be taken
 * (or is taken now: the next one is then being added). A tick handed over between the reads moves the
 * scheduler's `next`, so the scheduler is read again before concluding.
 */
async function missingTickOf(
  runtime: ITollgateRuntime,
  scheduleId: string,
): Promise<TScheduleRepairReason | undefined> {
  const queue = runtime.queues.runs;
  const scheduler = await queue.getJobScheduler(scheduleId);
  if (!scheduler) return "no-scheduler";
  if (scheduler.next === undefined || scheduler.next === null) return "no-next-tick";
  const state = await queue.getJobState(`repeat:${scheduleId}:${scheduler.next}`);
  if (liveTickStates.has(state)) return undefined;
  const again = await queue.getJobScheduler(scheduleId);
  if (!again) return "no-scheduler";
  return again.next === scheduler.next ? "no-next-tick" : undefined;
}

/**
 * Runs a repair pass every `scheduleRepairIntervalMs` in this process, for each partition it serves. A
 * timer of the process, not a BullMQ job scheduler: a job scheduler is what a failover may strand.
 */
export function startScheduleRepair(contexts: readonly IWorkerContext[]): { stop(): void } {
  const timers = contexts.map((context) =>
    setInterval(() => {
      repairSchedules(context).catch((error: unknown) => {
        context.logger.warn({ err: error }, "schedule repair pass failed; the next one tries again");
      });
    }, context.runtime.options.scheduleRepairIntervalMs),
  );
  for (const timer of timers) timer.unref();
  return {
    stop() {
      for (const timer of timers) clearInterval(timer);
    },
  };
}
