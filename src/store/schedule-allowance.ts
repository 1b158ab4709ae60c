import type { Redis } from "ioredis";
import { TollgateError } from "../errors/index.js";
import type { IKeys } from "./keys.js";
import { defineLuaCommand } from "./lua-command.js";
import { countScheduleScript, seedSchedulesScript } from "./schedule-allowance-scripts.js";

interface IAllowanceCommands {
  tgCountSchedule(allowance: string, ...args: string[]): Promise<[string, string?]>;
  tgSeedSchedules(allowance: string, ...args: string[]): Promise<number>;
}

function withAllowanceCommands(redis: Redis): Redis & IAllowanceCommands {
  const commands = redis as Redis & IAllowanceCommands;
  if (typeof commands.tgCountSchedule === "function") return commands;
  defineLuaCommand(redis, "tgCountSchedule", { numberOfKeys: 1, lua: countScheduleScript });
  defineLuaCommand(redis, "tgSeedSchedules", { numberOfKeys: 1, lua: seedSchedulesScript });
  return commands;
}

/** What a tenant may have in schedules. */
export interface IScheduleLimits {
  maxSchedules: number;
  maxTicksPerMinute: number;
}

/** What counting a schedule answered. */
export type TScheduleCount =
  | { outcome: "counted" }
  | { outcome: "unseeded" }
  | { outcome: "schedules"; count: number }
  | { outcome: "ticks"; ticksPerMinute: number };

/** One counted schedule. */
export interface ICountedSchedule {
  scheduleId: string;
  intervalMs: number;
  /** When it was counted (Redis's clock); 0 for a schedule counted when the count was seeded. */
  countedAt: number;
}

/**
 * A tenant's schedules as its limits count them, in one hash under the deployment's prefix: schedules
 * live in partitions, but a tenant's limit is one for all of them, so the check and the count are one
 * atomic step here, whatever the partition the schedule goes to.
 */
export class ScheduleAllowance {
  private readonly redis: Redis & IAllowanceCommands;
  /** When this process last looked for lost counts of a tenant (see mayLookForLost). */
  private readonly lookedForLostAt = new Map<string, number>();

  constructor(
    redis: Redis,
    private readonly keys: IKeys,
  ) {
    this.redis = withAllowanceCommands(redis);
  }

  /** Counts a schedule about to be stored, or says which limit it would pass (see countScheduleScript). */
  async count(
    tenant: string,
    scheduleId: string,
    intervalMs: number,
    limits: IScheduleLimits,
  ): Promise<TScheduleCount> {
    const [outcome, value] = await this.redis.tgCountSchedule(
      this.keys.tenantSchedules(tenant),
      scheduleId,
      String(intervalMs),
      String(limits.maxSchedules),
      String(limits.maxTicksPerMinute),
    );
    if (outcome === "counted" || outcome === "unseeded") return { outcome };
    if (outcome === "schedules") return { outcome, count: Number(value) };
    if (outcome === "ticks") return { outcome, ticksPerMinute: Number(value) };
    throw new TollgateError("TG_INTERNAL", `Unexpected schedule count reply ${String(outcome)}.`);
  }

  /** Counts the tenant's schedules stored before its count was kept, and marks the count seeded. */
  async seed(
    tenant: string,
    schedules: ReadonlyArray<{ scheduleId: string; intervalMs: number }>,
  ): Promise<void> {
    const args = schedules.flatMap(({ scheduleId, intervalMs }) => [scheduleId, `${intervalMs}:0`]);
    await this.redis.tgSeedSchedules(this.keys.tenantSchedules(tenant), ...args);
  }

  /** The tenant's counted schedules. */
  async counted(tenant: string): Promise<ICountedSchedule[]> {
    const entries = await this.redis.hgetall(this.keys.tenantSchedules(tenant));
    return Object.entries(entries).flatMap(([scheduleId, value]) => {
      if (scheduleId === "seeded") return [];
      const [intervalMs, countedAt] = value.split(":").map(Number);
      return [{ scheduleId, intervalMs: intervalMs ?? 0, countedAt: countedAt ?? 0 }];
    });
  }

  /**
   * Whether this process may look for counted schedules stored nowhere (a creation that died between
   * counting and storing) now: at most once per `intervalMs` per tenant, since a tenant refused again
   * and again must not make each refusal read all its schedules.
   */
  mayLookForLost(tenant: string, now: number, intervalMs: number): boolean {
    const last = this.lookedForLostAt.get(tenant);
    if (last !== undefined && now - last < intervalMs) return false;
    this.lookedForLostAt.set(tenant, now);
    return true;
  }

  /** No longer counts these schedules (deleted, or never stored). */
  async release(tenant: string, scheduleIds: readonly string[]): Promise<void> {
    if (scheduleIds.length === 0) return;
    await this.redis.hdel(this.keys.tenantSchedules(tenant), ...scheduleIds);
  }
}
