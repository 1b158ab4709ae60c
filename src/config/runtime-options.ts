import { z } from "zod";

/**
 * How the queue runtime behaves: one schema with its defaults, parsed once and frozen. The lock and stall
 * settings are chosen on purpose: BullMQ's defaults (lock 30 s, stalled check every 30 s, fail on the
 * second stall) take about a minute to recover a killed worker's job and then fail it. With 10 s / 5 s a
 * killed worker's job is back in about 15 s at worst, and three stalls are allowed before a job fails.
 */
/** One tenant's limits; a limit left out is no limit. */
export const tenantLimitSchema = z.strictObject({
  /** Runs of the tenant running at once (started, not finished); more wait in the queue. */
  maxRunning: z.number().int().min(1).optional(),
  /** Runs the tenant may create per minute (a sliding minute); more are refused with 429. */
  runsPerMinute: z.number().int().min(1).optional(),
});

/**
 * Limits per tenant name; the `default` entry applies to every tenant without an entry of its own (and
 * an entry's missing limits are taken from `default`). No entry at all: no limits.
 */
export const tenantLimitsSchema = z.record(z.string().min(1).max(128), tenantLimitSchema);

export type TTenantLimit = z.infer<typeof tenantLimitSchema>;

export const runtimeOptionsSchema = z.object({
  /** Redis connection URL. */
  redisUrl: z.string().min(1).default("redis://127.0.0.1:6379"),
  /** Prefix of every key and queue; use a hash tag (`{tollgate}`) on Redis Cluster. */
  prefix: z
    .string()
    .min(1)
    .regex(/^[^:\s]+$/, "no ':' or spaces")
    .default("tollgate"),
  /** How long a worker's lock on an active job lasts; it is renewed every half of it while the job runs. */
  lockDurationMs: z.number().int().min(500).default(10_000),
  /** How often each worker looks for jobs whose lock expired (a dead worker's jobs). */
  stalledIntervalMs: z.number().int().min(200).default(5_000),
  /** Stalls a job survives before it fails. Steps are idempotent, so a few are harmless. */
  maxStalledCount: z.number().int().min(0).default(3),
  /** Attempts of a tool job whose processing fails for an infrastructure reason (tool errors are results). */
  toolJobAttempts: z.number().int().min(1).default(3),
  /** First retry delay of a failed tool or approval job; doubles each attempt. */
  jobBackoffMs: z.number().int().min(0).default(1_000),
  /** How long finished runs, their events and finished jobs are kept. */
  retentionMs: z
    .number()
    .int()
    .min(1_000)
    .default(7 * 24 * 60 * 60 * 1000),
  /** Events kept per run. */
  eventsMaxLength: z.number().int().min(100).default(10_000),
  /** Messages of a thread kept as history. */
  maxHistoryMessages: z.number().int().min(2).default(200),
  /** A run waiting for its thread checks again after this long even if nobody wakes it. */
  threadRecheckMs: z.number().int().min(100).default(30_000),
  /** On SIGTERM, how long a worker waits for its active jobs before it hands them back. */
  shutdownTimeoutMs: z.number().int().min(0).default(20_000),
  /** How long a client waits for Redis to become reachable before a call fails with TG_REDIS_UNAVAILABLE. */
  connectTimeoutMs: z.number().int().min(100).default(5_000),
  /**
   * How long a command on a client connection (the API's) may take before it fails with
   * TG_REDIS_UNAVAILABLE: a Redis that stops answering (paused, swapping, a network partition) then
   * costs a request this long, not the whole outage. Worker connections block by design and have none.
   */
  commandTimeoutMs: z.number().int().min(50).max(600_000).default(2_000),
  /** After cancelling, how long `ask` waits for the worker to record the final state. */
  cancelGraceMs: z.number().int().min(0).default(10_000),
  /** Limits per tenant (runs at once, runs created per minute). */
  tenantLimits: tenantLimitsSchema.default({}),
  /**
   * How long a running run's slot lasts without an activation of the run. Each activation renews it; a
   * slot whose lease ran out (its worker died after the run ended, before the release) is reclaimed. A run
   * waiting longer than this for a human stops counting until it resumes.
   */
  runSlotLeaseMs: z
    .number()
    .int()
    .min(1_000)
    .default(10 * 60 * 1000),
});

export type TRuntimeOptions = Readonly<z.infer<typeof runtimeOptionsSchema>>;
export type TRuntimeOptionsInput = z.input<typeof runtimeOptionsSchema>;

export function parseRuntimeOptions(input: TRuntimeOptionsInput = {}): TRuntimeOptions {
  return Object.freeze(runtimeOptionsSchema.parse(input));
}
