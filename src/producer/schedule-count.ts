import { defaultScheduleLimits } from "../config/runtime-options.js";
import type { TScheduleRecord } from "../contracts/index.js";
import { TollgateError } from "../errors/index.js";
import type { IPartitionSet } from "../runtime/partition-set.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import { tickIntervalOf } from "../runtime/schedule-timing.js";
import type { IScheduleLimits, TScheduleCount } from "../store/index.js";

/** A counted schedule stored nowhere this long after it was counted is a creation that died between. */
const lostCountAfterMs = 60_000;

/** The tenant's schedule limits, and the name of the one that bounds its ticks. */
function scheduleLimitsOf(
  runtime: ITollgateRuntime,
  tenant: string,
): IScheduleLimits & { ticksLimit: "scheduleTicksPerMinute" | "runsPerMinute" } {
  const limits = runtime.limits.limitsOf(tenant);
  const maxSchedules = limits.maxSchedules ?? defaultScheduleLimits.maxSchedules;
  const ticks = limits.scheduleTicksPerMinute ?? defaultScheduleLimits.scheduleTicksPerMinute;
  // Ticks past the runs the tenant may create would be refused at each tick: they are refused here.
  if (limits.runsPerMinute !== undefined && limits.runsPerMinute < ticks) {
    return { maxSchedules, maxTicksPerMinute: limits.runsPerMinute, ticksLimit: "runsPerMinute" };
  }
  return { maxSchedules, maxTicksPerMinute: ticks, ticksLimit: "scheduleTicksPerMinute" };
}

/**
 * Counts a new schedule against its tenant's limits (deployment-wide: every partition's schedules), or
 * refuses it with TG_SCHEDULE_LIMIT_REACHED naming the limit. The first count of a tenant first counts
 * the schedules stored before counts were kept; a refusal first drops counts whose schedule was never
 * stored (at most once a minute per tenant and process), so a creation that died cannot hold a place.
 */
export async function countSchedule(
  partitions: IPartitionSet,
  runtime: ITollgateRuntime,
  tenant: string,
  scheduleId: string,
  intervalMs: number,
): Promise<void> {
  const limits = scheduleLimitsOf(runtime, tenant);
  const allowance = runtime.scheduleAllowance;
  let counted = await allowance.count(tenant, scheduleId, intervalMs, limits);
  if (counted.outcome === "unseeded") {
    await allowance.seed(tenant, await storedSchedulesOf(partitions, tenant, runtime.now()));
    counted = await allowance.count(tenant, scheduleId, intervalMs, limits);
  }
  if (
    (counted.outcome === "schedules" || counted.outcome === "ticks") &&
    allowance.mayLookForLost(tenant, runtime.now(), lostCountAfterMs) &&
    (await releaseLostCounts(partitions, runtime, tenant)) > 0
  ) {
    counted = await allowance.count(tenant, scheduleId, intervalMs, limits);
  }
  if (counted.outcome !== "counted") throw scheduleLimitRefusal(counted, limits, intervalMs);
}

function scheduleLimitRefusal(
  counted: TScheduleCount,
  limits: ReturnType<typeof scheduleLimitsOf>,
  intervalMs: number,
): TollgateError {
  if (counted.outcome === "schedules") {
    return new TollgateError(
      "TG_SCHEDULE_LIMIT_REACHED",
      `The tenant has ${counted.count} schedules, as many as it may (maxSchedules ${limits.maxSchedules}); ` +
        "delete one first (paused ones count).",
      { limit: "maxSchedules", allowed: limits.maxSchedules, current: counted.count },
    );
  }
  if (counted.outcome === "ticks") {
    const current = roundTicks(counted.ticksPerMinute);
    const requested = roundTicks(60_000 / intervalMs);
    return new TollgateError(
      "TG_SCHEDULE_LIMIT_REACHED",
      `The tenant's schedules tick ${current} times a minute; this one adds ${requested}, past the ` +
        `${limits.maxTicksPerMinute} a minute it may (${limits.ticksLimit}).`,
      { limit: limits.ticksLimit, allowed: limits.maxTicksPerMinute, current, requested },
    );
  }
  // The count was dropped while it was being seeded (a second "unseeded"): retrying is safe.
  return new TollgateError("TG_STATE_CONFLICT", "The tenant's schedule count changed meanwhile; retry.");
}

function roundTicks(ticksPerMinute: number): number {
  return Math.round(ticksPerMinute * 1000) / 1000;
}

/** Every schedule the tenant has stored, in every partition, with its tick interval. */
async function storedSchedulesOf(
  partitions: IPartitionSet,
  tenant: string,
  now: number,
): Promise<Array<{ scheduleId: string; intervalMs: number }>> {
  const perPartition = await Promise.all(
    partitions.all.map(async (runtime) => {
      const ids = await runtime.schedules.idsOfTenant(tenant);
      const stored = await Promise.all(ids.map((scheduleId) => runtime.schedules.record(scheduleId)));
      return stored.flatMap((found) => {
        if (!found) return [];
        return [{ scheduleId: found.record.scheduleId, intervalMs: storedIntervalOf(found.record, now) }];
      });
    }),
  );
  return perPartition.flat();
}

/** A stored schedule's interval; one its timing no longer reads with (a BullMQ upgrade) counts a minute. */
function storedIntervalOf(record: TScheduleRecord, now: number): number {
  try {
    return tickIntervalOf(record, now);
  } catch {
    return 60_000;
  }
}

/** Drops the counts, older than lostCountAfterMs, whose schedule is stored nowhere; how many it dropped. */
async function releaseLostCounts(
  partitions: IPartitionSet,
  runtime: ITollgateRuntime,
  tenant: string,
): Promise<number> {
  const before = runtime.now() - lostCountAfterMs;
  const old = (await runtime.scheduleAllowance.counted(tenant)).filter((entry) => entry.countedAt < before);
  const lost = await Promise.all(
    old.map(async ({ scheduleId }) => {
      const owner = partitions.ofId(scheduleId);
      return owner && (await owner.schedules.record(scheduleId)) ? undefined : scheduleId;
    }),
  );
  const ids = lost.filter((id): id is string => id !== undefined);
  await runtime.scheduleAllowance.release(tenant, ids);
  return ids.length;
}
