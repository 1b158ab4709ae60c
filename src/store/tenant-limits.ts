import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { TTenantLimit } from "../config/runtime-options.js";
import type { IKeys } from "./keys.js";
import { defineLuaCommand } from "./lua-command.js";
import {
  acquireRunSlotScript,
  releaseRunSlotScript,
  renewRunSlotScript,
  takeRunRateScript,
} from "./tenant-limit-scripts.js";

/** The tenant of a run that names none. */
export const defaultTenant = "default";

const minuteMs = 60_000;

interface ILimitCommands {
  tgAcquireRunSlot(running: string, waiting: string, ...args: string[]): Promise<number>;
  tgRenewRunSlot(running: string, ...args: string[]): Promise<number>;
  tgReleaseRunSlot(running: string, waiting: string, ...args: string[]): Promise<string>;
  tgTakeRunRate(rate: string, ...args: string[]): Promise<number>;
}

function withLimitCommands(redis: Redis): Redis & ILimitCommands {
  const commands = redis as Redis & ILimitCommands;
  if (typeof commands.tgAcquireRunSlot === "function") return commands;
  defineLuaCommand(redis, "tgAcquireRunSlot", { numberOfKeys: 2, lua: acquireRunSlotScript });
  defineLuaCommand(redis, "tgRenewRunSlot", { numberOfKeys: 1, lua: renewRunSlotScript });
  defineLuaCommand(redis, "tgReleaseRunSlot", { numberOfKeys: 2, lua: releaseRunSlotScript });
  defineLuaCommand(redis, "tgTakeRunRate", { numberOfKeys: 1, lua: takeRunRateScript });
  return commands;
}

/**
 * Per-tenant limits, enforced in Redis so that every API and worker process counts the same: runs
 * running at once (a sorted set of leases) and runs created per sliding minute. A tenant without a
 * limit costs no Redis command.
 */
export class TenantLimits {
  private readonly redis: Redis & ILimitCommands;

  constructor(
    redis: Redis,
    private readonly keys: IKeys,
    private readonly limits: Readonly<Record<string, TTenantLimit>>,
    private readonly leaseMs: number,
  ) {
    this.redis = withLimitCommands(redis);
  }

  /** The tenant's limits: its own entry over the `default` entry. */
  limitsOf(tenant: string): TTenantLimit {
    return {
      ...this.limits[defaultTenant],
      ...(Object.hasOwn(this.limits, tenant) ? this.limits[tenant] : {}),
    };
  }

  /** Takes a running slot for a run about to start; false when the tenant is at its limit (it waits). */
  async acquireSlot(tenant: string, runId: string): Promise<boolean> {
    const { maxRunning } = this.limitsOf(tenant);
    if (maxRunning === undefined) return true;
    const held = await this.redis.tgAcquireRunSlot(
      this.keys.tenantRunning(tenant),
      this.keys.tenantWaiting(tenant),
      runId,
      String(this.leaseMs),
      String(maxRunning),
    );
    return held === 1;
  }

  /** Renews the slot of a run that started (at each activation). */
  async renewSlot(tenant: string, runId: string): Promise<void> {
    if (this.limitsOf(tenant).maxRunning === undefined) return;
    await this.redis.tgRenewRunSlot(this.keys.tenantRunning(tenant), runId, String(this.leaseMs));
  }

  /** Gives the run's slot back; returns the waiting run to wake, if any. */
  async releaseSlot(tenant: string, runId: string): Promise<string | undefined> {
    if (this.limitsOf(tenant).maxRunning === undefined) return undefined;
    const next = await this.redis.tgReleaseRunSlot(
      this.keys.tenantRunning(tenant),
      this.keys.tenantWaiting(tenant),
      runId,
    );
    return next === "" ? undefined : next;
  }

  /** Counts a run created now; returns how long to wait (ms) when the tenant's minute is full. */
  async takeRunRate(tenant: string): Promise<number | undefined> {
    const { runsPerMinute } = this.limitsOf(tenant);
    if (runsPerMinute === undefined) return undefined;
    const retryAfterMs = await this.redis.tgTakeRunRate(
      this.keys.tenantRunRate(tenant),
      String(runsPerMinute),
      String(minuteMs),
      randomUUID(),
    );
    return retryAfterMs === 0 ? undefined : retryAfterMs;
  }
}
