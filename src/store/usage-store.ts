import type { IKeys } from "./keys.js";
import type { ITollgateRedis } from "./redis-client.js";

/** Tokens counted for one tenant and model. */
export interface IUsageCount {
  tenant: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  /** Model replies counted. */
  replies: number;
}

const dayMs = 24 * 60 * 60 * 1000;
/** Day buckets are kept this long: the usage API reads back up to a year and a bit. */
const usageRetentionSeconds = 400 * 24 * 60 * 60;
/** A field is `<tenant>|<model>|<kind>`: tenants and models are split at the first and last `|`. */
const separator = "|";

/** The UTC day of a time, `YYYY-MM-DD`: the bucket its tokens are counted in. */
export function usageDayOf(at: number): string {
  // Every model reply asks for the day it is counted in, nearly always the one asked for last: that one
  // is kept rather than formatting a Date each time (issue 26, main-thread CPU).
  const day = Math.floor(at / dayMs);
  if (day !== lastDay.day) lastDay = { day, iso: new Date(day * dayMs).toISOString().slice(0, 10) };
  return lastDay.iso;
}

/** The UTC day usageDayOf answered last (days since 1970-01-01) and its YYYY-MM-DD. */
let lastDay = { day: Number.NaN, iso: "" };

/**
 * Tokens per tenant and model, counted in Redis in one hash per UTC day (HINCRBY at each model reply, so
 * every worker adds to the same counts) and read back over a range of days.
 */
export class UsageStore {
  constructor(
    private readonly redis: ITollgateRedis,
    private readonly keys: IKeys,
  ) {}

  async record(
    tenant: string,
    model: string,
    usage: { promptTokens: number; completionTokens: number },
    at: number,
  ): Promise<void> {
    const field = [tenant, model, ""].join(separator);
    await this.redis.tgCountUsage(
      this.keys.usageDay(usageDayOf(at)),
      field,
      String(Math.max(0, Math.round(usage.promptTokens))),
      String(Math.max(0, Math.round(usage.completionTokens))),
      String(usageRetentionSeconds),
    );
  }

  /** The counts of the UTC days from `fromDay` to `toDay` (inclusive), for one tenant or all. */
  async read(range: { fromDay: string; toDay: string; tenant?: string }): Promise<IUsageCount[]> {
    const days = daysBetween(range.fromDay, range.toDay);
    const pipeline = this.redis.pipeline();
    for (const day of days) pipeline.hgetall(this.keys.usageDay(day));
    const results = (await pipeline.exec()) ?? [];
    const counts = new Map<string, IUsageCount>();
    for (const [error, hash] of results) {
      if (error) throw error;
      for (const [field, value] of Object.entries((hash ?? {}) as Record<string, string>)) {
        const first = field.indexOf(separator);
        const last = field.lastIndexOf(separator);
        if (first < 0 || last <= first) continue;
        const tenant = field.slice(0, first);
        if (range.tenant !== undefined && tenant !== range.tenant) continue;
        const model = field.slice(first + 1, last);
        const kind = field.slice(last + 1);
        const id = `${tenant}${separator}${model}`;
        const count = counts.get(id) ?? { tenant, model, promptTokens: 0, completionTokens: 0, replies: 0 };
        const amount = Number(value);
        if (kind === "prompt") count.promptTokens += amount;
        else if (kind === "completion") count.completionTokens += amount;
        else if (kind === "replies") count.replies += amount;
        counts.set(id, count);
      }
    }
    return [...counts.values()].sort(
      (a, b) => a.tenant.localeCompare(b.tenant) || a.model.localeCompare(b.model),
    );
  }
}

/** Every UTC day from `fromDay` to `toDay`, both `YYYY-MM-DD`. */
function daysBetween(fromDay: string, toDay: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${fromDay}T00:00:00Z`); at <= Date.parse(`${toDay}T00:00:00Z`); at += dayMs) {
    days.push(usageDayOf(at));
  }
  return days;
}
