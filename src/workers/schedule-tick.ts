import { DelayedError, type Job } from "bullmq";
import type { TScheduleRecord } from "../contracts/index.js";
import { TollgateError } from "../errors/index.js";
import { enqueueRun, idempotentRunId } from "../producer/enqueue-run.js";
import { scheduleTickJobSchema } from "../queue/index.js";
import { removeScheduler } from "../runtime/schedule-jobs.js";
import { tickTimeOfJobId } from "../runtime/schedule-timing.js";
import type { IWorkerContext } from "./worker-context.js";

/** The longest a queued tick waits before it looks again whether the schedule's previous run finished. */
const maxQueuedTickRecheckMs = 5_000;

export interface IScheduleTickOutcome {
  scheduleId: string;
  tickAt: number;
  outcome: "fired" | "skipped" | "paused" | "gone";
  runId?: string;
  reason?: string;
}

/**
 * A schedule's tick: BullMQ's job scheduler made exactly one job for it (`repeat:<scheduleId>:<millis>`),
 * whatever the number of workers. The tick starts at most one run, whatever the number of times its job
 * runs: the run's id is derived from the tick (an idempotency key), so a tick job retried after a crash
 * finds the run it created. Before that, the tick claims the schedule (one Lua step): while the run of an
 * earlier tick has not finished, the tick is skipped (counted, recorded) or, with `overlap: "queue"`,
 * waits as a delayed job and asks again. A run the gateway refuses now (the gateway changed since the
 * schedule was checked, the tenant's runs per minute) is a skipped tick with its code, never a retry loop.
 */
export async function handleScheduleTick(
  context: IWorkerContext,
  job: Job,
  token: string | undefined,
): Promise<IScheduleTickOutcome> {
  const { runtime } = context;
  const { scheduleId } = scheduleTickJobSchema.parse(job.data);
  const tickAt = tickTimeOfJobId(job.id) ?? job.timestamp;
  const logger = context.logger.child({ scheduleId, tickAt, queue: "runs", jobId: job.id });
  const stored = await runtime.schedules.record(scheduleId);
  if (!stored) {
    // Deleted (a deletion that stopped between its two writes leaves the scheduler): it goes now.
    await removeScheduler(runtime, scheduleId);
    return { scheduleId, tickAt, outcome: "gone" };
  }
  if (stored.paused) return { scheduleId, tickAt, outcome: "paused" };
  const { record } = stored;
  const tickKey = `schedule-${scheduleId}-${tickAt}`;
  const runId = idempotentRunId(runtime.partition.runIdPrefix, record.tenant, tickKey);
  const claim = await runtime.schedules.claimTick({
    scheduleId,
    tenant: record.tenant,
    runId,
    now: runtime.now(),
    overlap: record.overlap,
    tickAt,
  });
  if (claim.outcome === "busy") {
    // Queued behind the run of an earlier tick: wait as a delayed job (holding no worker), then ask again.
    await job.moveToDelayed(runtime.now() + queuedTickRecheckMsOf(record), token);
    throw new DelayedError();
  }
  if (claim.outcome === "skipped") {
    context.metrics?.scheduleTickSkipped("overlap");
    logger.info(
      { activeRunId: claim.activeRunId },
      "schedule tick skipped: its previous run has not finished",
    );
    return { scheduleId, tickAt, outcome: "skipped", runId: claim.activeRunId, reason: "overlap" };
  }
  if (claim.outcome !== "claimed") return { scheduleId, tickAt, outcome: claim.outcome };
  try {
    await enqueueRun(
      runtime,
      { ...record.request, idempotencyKey: tickKey },
      { schedule: { scheduleId, scheduledAt: tickAt } },
    );
  } catch (error) {
    // Redis trouble (5xx) is retried by the job, its claim kept; a refusal (4xx) will not change.
    if (!TollgateError.isInstance(error) || error.httpStatus >= 500) throw error;
    const at = runtime.now();
    await runtime.schedules.settleTick(scheduleId, runId, {
      tickAt,
      outcome: "skipped",
      reason: error.code,
      at,
    });
    context.metrics?.scheduleTickSkipped("refused");
    logger.warn({ err: error, code: error.code }, "schedule tick skipped: its run was refused");
    return { scheduleId, tickAt, outcome: "skipped", reason: error.code };
  }
  const fired = { tickAt, outcome: "fired" as const, runId, at: runtime.now() };
  if (await runtime.schedules.settleTick(scheduleId, runId, fired)) context.metrics?.scheduleTickFired();
  logger.info({ runId }, "schedule tick fired");
  return { scheduleId, tickAt, outcome: "fired", runId };
}

function queuedTickRecheckMsOf(record: TScheduleRecord): number {
  return Math.min(record.everyMs ?? maxQueuedTickRecheckMs, maxQueuedTickRecheckMs);
}
