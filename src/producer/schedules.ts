import {
  defaultTenant,
  scheduleRecordVersion,
  type TScheduleRecord,
  type TScheduleView,
  tenantOf,
} from "../contracts/index.js";
import { describeFieldIssues, type IFieldIssue, TollgateError, toFieldIssues } from "../errors/index.js";
import type { IPartitionSet } from "../runtime/partition-set.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import { nextTickOf, removeScheduler, upsertScheduler } from "../runtime/schedule-jobs.js";
import { tickIntervalOf } from "../runtime/schedule-timing.js";
import { type ISchedulePosition, type IStoredSchedule, schedulePrecedes } from "../store/index.js";
import { validateRunRequest } from "./enqueue-run.js";
import { randomId } from "./random-id.js";
import { countSchedule } from "./schedule-count.js";
import { scheduleInputSchema } from "./schedule-input-schema.js";

export interface IScheduleQuery {
  /** Only this tenant's schedules; absent: every tenant's. */
  tenant?: string;
  /** @defaultValue 50 */
  limit?: number;
  /** From the previous page's `nextCursor`. */
  cursor?: string;
}

export interface ISchedulePage {
  schedules: TScheduleView[];
  /** Absent on the last page. */
  nextCursor?: string;
}

/** @defaultValue of `limit`. */
export const defaultSchedulePageLimit = 50;

/**
 * Creates a schedule: its timing and its run request are checked first, the request exactly as
 * `POST /v1/runs` checks it (so a tick never starts a run that fails validation at 3 a.m.), then the
 * schedule is stored and its BullMQ job scheduler put on the partition's runs queue. A schedule on a
 * thread goes to the thread's partition (its runs must); any other to one at random. Should the scheduler
 * not be written, the stored schedule is removed again and the error thrown.
 */
export async function createSchedule(partitions: IPartitionSet, rawInput: unknown): Promise<TScheduleView> {
  const parsed = scheduleInputSchema.safeParse(rawInput);
  if (!parsed.success) {
    const issues = toFieldIssues(parsed.error);
    throw new TollgateError("TG_INVALID_REQUEST", `Invalid schedule: ${describeFieldIssues(issues)}`, {
      issues,
    });
  }
  const { request, ...timing } = parsed.data;
  const tenant = tenantOf(request);
  const runtime =
    request.threadId !== undefined
      ? await partitions.forThread({ tenant, threadId: request.threadId })
      : partitions.forKey(undefined);
  await runtime.ready();
  const intervalMs = tickIntervalOf(timing, runtime.now());
  await withRequestPaths(() => validateRunRequest(runtime, request));
  assertWithinRunRate(runtime, tenant, intervalMs);
  const scheduleId = `${runtime.partition.scheduleIdPrefix}${randomId()}`;
  // Counted before it is stored: a refusal stores nothing, and two creations at once cannot both take
  // the tenant's last place.
  await countSchedule(partitions, runtime, tenant, scheduleId, intervalMs);
  const record: TScheduleRecord = {
    schemaVersion: scheduleRecordVersion,
    scheduleId,
    tenant,
    ...(request.createdBy !== undefined ? { createdBy: request.createdBy } : {}),
    ...(timing.name !== undefined ? { name: timing.name } : {}),
    ...(timing.cron !== undefined ? { cron: timing.cron } : {}),
    ...(timing.everyMs !== undefined ? { everyMs: timing.everyMs } : {}),
    ...(timing.timezone !== undefined ? { timezone: timing.timezone } : {}),
    overlap: timing.overlap ?? "skip",
    request,
    createdAt: runtime.now(),
  };
  try {
    await runtime.schedules.create(record);
    await upsertScheduler(runtime, record);
  } catch (error) {
    await runtime.schedules.delete(record.scheduleId, tenant).catch(() => undefined);
    await runtime.scheduleAllowance.release(tenant, [scheduleId]).catch(() => undefined);
    throw error;
  }
  return viewOf(runtime, (await runtime.schedules.get(record.scheduleId)) ?? storedNew(record));
}

/** The schedule, with its next tick and latest tick outcomes; TG_SCHEDULE_NOT_FOUND when unknown. */
export async function getSchedule(partitions: IPartitionSet, scheduleId: string): Promise<TScheduleView> {
  const runtime = await partitionOf(partitions, scheduleId);
  const stored = await runtime.schedules.get(scheduleId);
  if (!stored) throw notFound(scheduleId);
  return viewOf(runtime, stored);
}

/**
 * Pauses a schedule: the flag first (a tick already due then starts no run), then its job scheduler goes,
 * so a paused schedule costs no job. Pausing a paused schedule changes nothing.
 */
export async function pauseSchedule(partitions: IPartitionSet, scheduleId: string): Promise<TScheduleView> {
  const runtime = await partitionOf(partitions, scheduleId);
  if (!(await runtime.schedules.setPaused(scheduleId, true))) throw notFound(scheduleId);
  await removeScheduler(runtime, scheduleId);
  return getSchedule(partitions, scheduleId);
}

/** Resumes a schedule: its job scheduler is put back (an `everyMs` schedule ticks at once). */
export async function resumeSchedule(partitions: IPartitionSet, scheduleId: string): Promise<TScheduleView> {
  const runtime = await partitionOf(partitions, scheduleId);
  const stored = await runtime.schedules.record(scheduleId);
  if (!stored) throw notFound(scheduleId);
  if (!(await runtime.schedules.setPaused(scheduleId, false))) throw notFound(scheduleId);
  await upsertScheduler(runtime, stored.record);
  return getSchedule(partitions, scheduleId);
}

/** Deletes a schedule and its job scheduler; its runs stay. TG_SCHEDULE_NOT_FOUND when unknown. */
export async function deleteSchedule(
  partitions: IPartitionSet,
  scheduleId: string,
): Promise<{ scheduleId: string; deleted: true }> {
  const runtime = await partitionOf(partitions, scheduleId);
  const stored = await runtime.schedules.record(scheduleId);
  if (!stored) throw notFound(scheduleId);
  // The record first: a tick that runs meanwhile finds it gone and starts nothing.
  await runtime.schedules.delete(scheduleId, stored.record.tenant);
  await removeScheduler(runtime, scheduleId);
  // Its place last: should this process die before, the place is found lost at the tenant's limit.
  await runtime.scheduleAllowance.release(stored.record.tenant, [scheduleId]);
  return { scheduleId, deleted: true };
}

/**
 * A page of schedules over every partition, newest first: each partition reads from the same position
 * (creation time and id: one order everywhere), and the merged page is the first `limit` after it.
 */
export async function listSchedules(
  partitions: IPartitionSet,
  query: IScheduleQuery,
): Promise<ISchedulePage> {
  const limit = query.limit ?? defaultSchedulePageLimit;
  const after = query.cursor !== undefined ? decodeScheduleCursor(query.cursor) : undefined;
  const reads = await Promise.all(
    partitions.all.map(async (runtime) => {
      const positions = await runtime.schedules.page(query.tenant, after, limit + 1);
      return positions.map((position) => ({ runtime, position }));
    }),
  );
  const merged = reads
    .flat()
    .sort((a, b) =>
      schedulePrecedes(a.position, b.position) ? -1 : schedulePrecedes(b.position, a.position) ? 1 : 0,
    );
  const taken = merged.slice(0, limit);
  const views = await Promise.all(
    taken.map(async ({ runtime, position }) => {
      const stored = await runtime.schedules.get(position.id);
      return stored ? viewOf(runtime, stored) : undefined;
    }),
  );
  const page: ISchedulePage = {
    schedules: views.filter((view): view is TScheduleView => view !== undefined),
  };
  if (merged.length > limit) page.nextCursor = encodeScheduleCursor(taken.at(-1)!.position);
  return page;
}

async function partitionOf(partitions: IPartitionSet, scheduleId: string): Promise<ITollgateRuntime> {
  const runtime = partitions.ofId(scheduleId);
  if (!runtime) throw notFound(scheduleId);
  await runtime.ready();
  return runtime;
}

async function viewOf(runtime: ITollgateRuntime, stored: IStoredSchedule): Promise<TScheduleView> {
  const { schemaVersion: _version, ...record } = stored.record;
  const nextTickAt = stored.paused ? undefined : await nextTickOf(runtime, record.scheduleId);
  return {
    ...record,
    paused: stored.paused,
    ...(nextTickAt !== undefined ? { nextTickAt } : {}),
    ticksFired: stored.ticksFired,
    ticksSkipped: stored.ticksSkipped,
    recentTicks: stored.recentTicks,
  };
}

function storedNew(record: TScheduleRecord): IStoredSchedule {
  return { record, paused: false, ticksFired: 0, ticksSkipped: 0, recentTicks: [] };
}

/**
 * A schedule whose ticks alone would pass its tenant's runs per minute would have most of its runs
 * refused: it is refused when created instead (422, naming the limit).
 */
function assertWithinRunRate(runtime: ITollgateRuntime, tenant: string, intervalMs: number): void {
  const { runsPerMinute } = runtime.limits.limitsOf(tenant ?? defaultTenant);
  if (runsPerMinute === undefined) return;
  const ticksPerMinute = 60_000 / intervalMs;
  if (ticksPerMinute <= runsPerMinute) return;
  const message = `ticks ${Math.ceil(ticksPerMinute)} times a minute; the tenant may create ${runsPerMinute} runs a minute`;
  throw new TollgateError("TG_INVALID_REQUEST", `Invalid schedule: ${message}.`, {
    issues: [{ path: "everyMs", message }],
    runsPerMinute,
  });
}

/** The run request's own refusals, their fields named from the schedule (`request.model`). */
async function withRequestPaths<T>(check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (!TollgateError.isInstance(error) || !Array.isArray(error.details?.issues)) throw error;
    const issues = (error.details.issues as IFieldIssue[]).map((issue) => ({
      ...issue,
      path: `request.${issue.path}`,
    }));
    throw new TollgateError(error.code, error.message, { ...error.details, issues }, { cause: error });
  }
}

function notFound(scheduleId: string): TollgateError {
  return new TollgateError("TG_SCHEDULE_NOT_FOUND", `No schedule has id ${scheduleId}.`, { scheduleId });
}

function encodeScheduleCursor(position: ISchedulePosition): string {
  return Buffer.from(JSON.stringify([position.score, position.id])).toString("base64url");
}

/** A cursor this listing did not give is refused (TG_BAD_REQUEST), never read as "from the start". */
function decodeScheduleCursor(text: string): ISchedulePosition {
  try {
    const [score, id] = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as unknown[];
    if (typeof score === "number" && Number.isSafeInteger(score) && typeof id === "string" && id !== "") {
      return { score, id };
    }
  } catch {
    // Falls through to the refusal.
  }
  throw new TollgateError("TG_BAD_REQUEST", "The cursor is not one a schedule listing returned.");
}
