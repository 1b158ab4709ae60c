import type { Redis } from "ioredis";
import {
  scheduleRecordSchema,
  scheduleTickSchema,
  type TScheduleOverlap,
  type TScheduleRecord,
  type TScheduleTick,
} from "../contracts/index.js";
import { TollgateError } from "../errors/index.js";
import type { IKeys } from "./keys.js";
import { defineLuaCommand } from "./lua-command.js";
import {
  claimScheduleTickScript,
  createScheduleScript,
  deleteScheduleScript,
  setSchedulePausedScript,
  settleScheduleTickScript,
} from "./schedule-scripts.js";

interface IScheduleCommands {
  tgCreateSchedule(...keysAndArgs: string[]): Promise<number>;
  tgSetSchedulePaused(scheduleKey: string, paused: string): Promise<number>;
  tgDeleteSchedule(...keysAndArgs: string[]): Promise<number>;
  tgClaimScheduleTick(...keysAndArgs: string[]): Promise<[string, string?]>;
  tgSettleScheduleTick(...keysAndArgs: string[]): Promise<number>;
}

function withScheduleCommands(redis: Redis): Redis & IScheduleCommands {
  const commands = redis as Redis & IScheduleCommands;
  if (typeof commands.tgCreateSchedule === "function") return commands;
  defineLuaCommand(redis, "tgCreateSchedule", { numberOfKeys: 3, lua: createScheduleScript });
  defineLuaCommand(redis, "tgSetSchedulePaused", { numberOfKeys: 1, lua: setSchedulePausedScript });
  defineLuaCommand(redis, "tgDeleteSchedule", { numberOfKeys: 5, lua: deleteScheduleScript });
  defineLuaCommand(redis, "tgClaimScheduleTick", { numberOfKeys: 4, lua: claimScheduleTickScript });
  defineLuaCommand(redis, "tgSettleScheduleTick", { numberOfKeys: 2, lua: settleScheduleTickScript });
  return commands;
}

/** Tick outcomes kept per schedule (the stream is trimmed to about this many). */
export const scheduleTicksMaxLength = 200;

/** Tick outcomes a schedule's view shows, newest first. */
const recentTicksShown = 20;

/**
 * How long a tick's claim holds before its run exists. A claimed tick creates its run at once; a claim
 * older than this whose run never appeared (its worker died, its job failed for good) no longer makes
 * the next ticks overlap. A retried tick job takes its own claim back whatever its age.
 */
export const scheduleClaimGraceMs = 60_000;

/**
 * A queued tick asks again at least this often (its recheck is at most 5 s); one that has not asked for
 * this long lost its job and leaves the line, so it cannot hold the ticks behind it.
 */
export const waitingTickStaleMs = 30_000;

/** A schedule as stored, with what changes beside its record. */
export interface IStoredSchedule {
  record: TScheduleRecord;
  paused: boolean;
  ticksFired: number;
  ticksSkipped: number;
  recentTicks: TScheduleTick[];
}

/** Where a listing of schedules is: creation time and id, newest first (ties by id descending). */
export interface ISchedulePosition {
  score: number;
  id: string;
}

/** What a tick's claim answered. */
export type TTickClaim =
  | { outcome: "claimed" }
  | { outcome: "skipped" | "busy"; activeRunId: string }
  | { outcome: "paused" | "gone" };

/**
 * Schedules in Redis, under the partition's prefix (the partition the schedule's id names): the record,
 * its paused flag and tick counters, its latest tick outcomes, and the listing's indexes. BullMQ's job
 * scheduler (on the partition's runs queue) produces the ticks; this store decides what each one does.
 */
export class ScheduleStore {
  private readonly redis: Redis & IScheduleCommands;

  constructor(
    redis: Redis,
    private readonly keys: IKeys,
  ) {
    this.redis = withScheduleCommands(redis);
  }

  /** Stores a new schedule, listed in its tenant's index and the partition's; false when the id exists. */
  async create(record: TScheduleRecord): Promise<boolean> {
    const created = await this.redis.tgCreateSchedule(
      this.keys.schedule(record.scheduleId),
      this.keys.scheduleIndex(record.tenant),
      this.keys.scheduleIndex(),
      JSON.stringify(scheduleRecordSchema.parse(record)),
      record.scheduleId,
      String(record.createdAt),
    );
    return created === 1;
  }

  async get(scheduleId: string): Promise<IStoredSchedule | undefined> {
    const [fields, entries] = await Promise.all([
      this.redis.hmget(this.keys.schedule(scheduleId), "record", "paused", "fired", "skipped"),
      this.redis.xrevrange(this.keys.scheduleTicks(scheduleId), "+", "-", "COUNT", recentTicksShown),
    ]);
    const [json, paused, fired, skipped] = fields;
    if (json === null || json === undefined) return undefined;
    return {
      record: readRecord(json, scheduleId),
      paused: paused === "1",
      ticksFired: Number(fired ?? 0),
      ticksSkipped: Number(skipped ?? 0),
      recentTicks: entries.flatMap(([, values]) => readTick(values)),
    };
  }

  /** Only the record (what a tick needs), with the paused flag; undefined once deleted. */
  async record(scheduleId: string): Promise<{ record: TScheduleRecord; paused: boolean } | undefined> {
    const [json, paused] = await this.redis.hmget(this.keys.schedule(scheduleId), "record", "paused");
    if (json === null || json === undefined) return undefined;
    return { record: readRecord(json, scheduleId), paused: paused === "1" };
  }

  /** Sets the paused flag; false when the schedule does not exist. */
  async setPaused(scheduleId: string, paused: boolean): Promise<boolean> {
    return (await this.redis.tgSetSchedulePaused(this.keys.schedule(scheduleId), paused ? "1" : "0")) === 1;
  }

  /** Deletes the schedule, its ticks and its index entries; false when it did not exist. */
  async delete(scheduleId: string, tenant: string): Promise<boolean> {
    const deleted = await this.redis.tgDeleteSchedule(
      this.keys.schedule(scheduleId),
      this.keys.scheduleTicks(scheduleId),
      this.keys.scheduleIndex(tenant),
      this.keys.scheduleIndex(),
      this.keys.scheduleWaitingTicks(scheduleId),
      scheduleId,
    );
    return deleted === 1;
  }

  /** A tick asks to start `runId` (derived from the tick): see claimScheduleTickScript. */
  async claimTick(args: {
    scheduleId: string;
    tenant: string;
    runId: string;
    now: number;
    overlap: TScheduleOverlap;
    tickAt: number;
  }): Promise<TTickClaim> {
    const skipped: TScheduleTick = {
      tickAt: args.tickAt,
      outcome: "skipped",
      reason: "overlap",
      at: args.now,
    };
    const [outcome, activeRunId] = await this.redis.tgClaimScheduleTick(
      this.keys.schedule(args.scheduleId),
      this.keys.runIndex("unfinished", args.tenant),
      this.keys.scheduleTicks(args.scheduleId),
      this.keys.scheduleWaitingTicks(args.scheduleId),
      args.runId,
      String(args.now),
      String(scheduleClaimGraceMs),
      args.overlap,
      JSON.stringify(skipped),
      String(scheduleTicksMaxLength),
      String(args.tickAt),
      String(waitingTickStaleMs),
    );
    if (outcome === "claimed") return { outcome };
    if (outcome === "skipped" || outcome === "busy") return { outcome, activeRunId: activeRunId ?? "" };
    if (outcome === "paused" || outcome === "gone") return { outcome };
    throw new TollgateError("TG_INTERNAL", `Unexpected tick claim reply ${String(outcome)}.`);
  }

  /** Records a claimed tick's end: its run exists (`fired`), or was refused; true when recorded now. */
  async settleTick(scheduleId: string, runId: string, tick: TScheduleTick): Promise<boolean> {
    const recorded = await this.redis.tgSettleScheduleTick(
      this.keys.schedule(scheduleId),
      this.keys.scheduleTicks(scheduleId),
      runId,
      tick.outcome === "fired" ? "fired" : "refused",
      JSON.stringify(tick),
      String(scheduleTicksMaxLength),
    );
    return recorded === 1;
  }

  /**
   * Up to `count` ids of the partition's schedules from rank `start` of its index (oldest first), and the
   * index's size: the schedule repair walks the partition a bounded slice per pass.
   */
  async partitionSlice(start: number, count: number): Promise<{ ids: string[]; total: number }> {
    const key = this.keys.scheduleIndex();
    const [ids, total] = await Promise.all([
      this.redis.zrange(key, String(start), String(start + count - 1)),
      this.redis.zcard(key),
    ]);
    return { ids, total };
  }

  /** Every schedule id of a tenant in this partition (the schedules a tenant's limits count). */
  async idsOfTenant(tenant: string): Promise<string[]> {
    return this.redis.zrange(this.keys.scheduleIndex(tenant), "0", "-1");
  }

  /**
   * Up to `limit` schedule ids after `after` (newest first), of a tenant or of every tenant. Ties of
   * creation time are read whole, then cut at the position, so a cursor never skips one.
   */
  async page(
    tenant: string | undefined,
    after: ISchedulePosition | undefined,
    limit: number,
  ): Promise<ISchedulePosition[]> {
    const key = this.keys.scheduleIndex(tenant);
    const max = after === undefined ? "+inf" : String(after.score);
    const ties = after === undefined ? 0 : await this.redis.zcount(key, max, max);
    const reply = await this.redis.zrange(
      key,
      max,
      "-inf",
      "BYSCORE",
      "REV",
      "LIMIT",
      0,
      limit + ties,
      "WITHSCORES",
    );
    const positions: ISchedulePosition[] = [];
    for (let at = 0; at < reply.length; at += 2) {
      positions.push({ id: reply[at]!, score: Number(reply[at + 1]) });
    }
    return positions
      .sort((a, b) => (schedulePrecedes(a, b) ? -1 : schedulePrecedes(b, a) ? 1 : 0))
      .filter((position) => after === undefined || schedulePrecedes(after, position))
      .slice(0, limit);
  }
}

/** Whether `a` lists before `b`: newer, or as new with a greater id. */
export function schedulePrecedes(a: ISchedulePosition, b: ISchedulePosition): boolean {
  return a.score > b.score || (a.score === b.score && a.id > b.id);
}

function readRecord(json: string, scheduleId: string): TScheduleRecord {
  const parsed = scheduleRecordSchema.safeParse(JSON.parse(json));
  if (parsed.success) return parsed.data;
  throw new TollgateError("TG_INTERNAL", `Schedule ${scheduleId} has a record this version cannot read.`, {
    scheduleId,
  });
}

function readTick(values: string[]): TScheduleTick[] {
  const json = values[1];
  if (values[0] !== "tick" || json === undefined) return [];
  const parsed = scheduleTickSchema.safeParse(JSON.parse(json));
  return parsed.success ? [parsed.data] : [];
}
