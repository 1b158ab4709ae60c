import { z } from "zod";
import { describeFieldIssues, TollgateError, toConfigIssues, unknownKeysErrorMap } from "../errors/index.js";

/**
 * How the queue runtime behaves: one schema with its defaults, parsed once and frozen. The lock and stall
 * settings are chosen on purpose: BullMQ's defaults (lock 30 s, stalled check every 30 s, fail on the
 * second stall) take about a minute to recover a killed worker's job and then fail it. With 10 s / 5 s a
 * killed worker's job is back in about 15 s at worst, and three stalls are allowed before a job fails.
 */
/** `host:port`, `[::1]:port` for IPv6. */
const hostPort = z
  .string()
  .trim()
  .regex(/^(\[[^\]]+\]|[^:\s[\]]+):\d{1,5}$/, "must be host:port");

/**
 * What a tenant's schedules may be when no limit says otherwise: one token could create thousands, and
 * each schedule ticks on its own. 600 ticks a minute is what one schedule at the shortest `everyMs`
 * (100 ms) makes.
 */
export const defaultScheduleLimits = Object.freeze({ maxSchedules: 100, scheduleTicksPerMinute: 600 });

/** One tenant's limits; a run limit left out is no limit, a schedule limit left out is its default. */
export const tenantLimitSchema = z.strictObject({
  /** Runs of the tenant running at once (started, not finished); more wait in the queue. */
  maxRunning: z.number().int().min(1).optional(),
  /** Runs the tenant may create per minute (a sliding minute); more are refused with 429. */
  runsPerMinute: z.number().int().min(1).optional(),
  /** Schedules the tenant may have, paused ones included (defaultScheduleLimits: 100). */
  maxSchedules: z.number().int().min(0).max(1_000_000).optional(),
  /**
   * Ticks a minute the tenant's schedules may make together (and never more than its runsPerMinute);
   * a schedule that would pass it is refused when created (defaultScheduleLimits: 600).
   */
  scheduleTicksPerMinute: z.number().positive().max(1_000_000).optional(),
});

/**
 * Limits per tenant name; the `default` entry applies to every tenant without an entry of its own (and
 * an entry's missing limits are taken from `default`). No entry at all: no limits.
 */
export const tenantLimitsSchema = z.record(z.string().min(1).max(128), tenantLimitSchema);

export type TTenantLimit = z.infer<typeof tenantLimitSchema>;

export const runtimeOptionsSchema = z
  .strictObject({
    /** Redis connection URL of a single node (ignored when `redisClusterNodes` or `redisSentinels` is set). */
    redisUrl: z.string().min(1).default("redis://127.0.0.1:6379"),
    /**
     * Seed nodes of a Redis Cluster (`host:port`); set, Tollgate connects with ioredis's Cluster client,
     * which follows MOVED/ASK and failovers. The prefix must then carry a hash tag (`{tollgate}`).
     */
    redisClusterNodes: z.array(hostPort).min(1).optional(),
    /** Sentinels (`host:port`) that know the primary named `redisSentinelName`. */
    redisSentinels: z.array(hostPort).min(1).optional(),
    /** The primary's name in Sentinel (`SENTINEL MONITOR <name> ...`). */
    redisSentinelName: z.string().min(1).optional(),
    /** ACL user for cluster nodes and Sentinel-managed primaries (a single node takes it from the URL). */
    redisUsername: z.string().min(1).optional(),
    /** Password for cluster nodes and Sentinel-managed primaries (a single node takes it from the URL). */
    redisPassword: z.string().min(1).optional(),
    /** Password of the sentinels themselves, when they have one. */
    redisSentinelPassword: z.string().min(1).optional(),
    /** TLS to cluster nodes and Sentinel-managed primaries (a single node: a `rediss://` URL). */
    redisTls: z.boolean().default(false),
    /**
     * Refuse to start when Redis may evict keys (`maxmemory-policy` other than `noeviction`): evicted
     * runs and approvals vanish silently. Unset: true when NODE_ENV is "production".
     */
    requireNoEviction: z.boolean().optional(),
    /** Prefix of every key and queue; use a hash tag (`{tollgate}`) on Redis Cluster. */
    prefix: z
      .string()
      .min(1)
      .regex(/^[^:\s]+$/, "no ':' or spaces")
      .default("tollgate"),
    /**
     * Partitions new runs spread over: each is a complete set of queues and stores under its own
     * hash-tagged prefix derived from `prefix`, so that a Redis Cluster spreads one deployment over its
     * masters. 1 is the unpartitioned layout (keys and ids as before partitions existed). A run's
     * partition follows its thread; every id names its partition.
     */
    partitions: z.number().int().min(1).max(64).default(1),
    /**
     * The partition count before the last change of `partitions`: its partitions are still served and
     * found by id until their runs finished, and a thread it holds keeps getting its runs there. The
     * default, 1, is the unpartitioned layout every deployment started with; set it equal to
     * `partitions` once nothing is left in the old layout.
     */
    previousPartitions: z.number().int().min(1).max(64).default(1),
    /**
     * The partitions a worker serves (`base`, an index of the current layout, or `<index>of<count>`).
     * Unset: every partition of the current and previous layouts.
     */
    servedPartitions: z
      .array(
        z
          .string()
          .trim()
          .regex(/^(base|(0|[1-9]\d{0,2})(of[1-9]\d{0,2})?)$/, "base, <index> or <index>of<count>"),
      )
      .min(1)
      .optional(),
    /** How long a worker's lock on an active job lasts; it is renewed every half of it while the job runs. */
    lockDurationMs: z.number().int().min(500).default(10_000),
    /** How often each worker looks for jobs whose lock expired (a dead worker's jobs). */
    stalledIntervalMs: z.number().int().min(200).default(5_000),
    /** Stalls a job survives before it fails. Steps are idempotent, so a few are harmless. */
    maxStalledCount: z.number().int().min(0).default(3),
    /**
     * How long a run job waits, in its worker slot, for the tool jobs it just added when the same worker
     * process runs them, before it moves to waiting-children. Tools that finish within it let the run go
     * on in the same activation: no move back to wait, no fetch of the run job, no read of its state
     * (docs/DESIGN-NOTES.md, "A fast tool's run goes on in the same activation"). 0 moves it at once.
     */
    fastToolWaitMs: z.number().int().min(0).max(10_000).default(2),
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
    /**
     * How long a decided approval stays listable (its record and its place in the decided indexes),
     * independent of the run's retention: the decision history auditors read.
     */
    approvalRetentionMs: z
      .number()
      .int()
      .min(1_000)
      .default(90 * 24 * 60 * 60 * 1000),
    /** Events kept per run (lifecycle events: streamed text has its own allowance, below). */
    eventsMaxLength: z.number().int().min(100).default(10_000),
    /**
     * `text-delta` writes a run may make, across all its steps; past it, the run's text is no longer
     * streamed (the response still has it all). The run's stream is trimmed at eventsMaxLength plus this,
     * so a long answer never pushes lifecycle events out.
     */
    textDeltasMaxPerRun: z.number().int().min(0).default(10_000),
    /**
     * Entries kept on the stream of approval events (one stream for every approval under the prefix),
     * trimmed approximately: a follower that was away longer resumes from the oldest kept.
     */
    approvalEventsMaxLength: z.number().int().min(100).default(100_000),
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
    /**
     * How long Redis may leave a process's questions unanswered before its `/healthz` (the liveness probe,
     * API and workers alike) answers 503: a process that can no longer reach Redis, or whose connection no
     * longer sends anything, is then restarted by its orchestrator. Longer than a failover, so an outage
     * Redis recovers from restarts nothing; `/readyz` says at once whether Redis is reachable now.
     */
    livenessRedisTimeoutMs: z.number().int().min(1_000).default(60_000),
    /**
     * How long a thread's history and run lists are kept after their last use (a run submitted or finished
     * on it, its history read): a thread nobody uses goes away on its own.
     */
    threadRetentionMs: z
      .number()
      .int()
      .min(1_000)
      .default(30 * 24 * 60 * 60 * 1000),
    /**
     * How often the reconciler looks for runs that no job holds any more (its add failed, or its job failed
     * and the failure could not be recorded): one pass at a time across every worker.
     */
    reconcileIntervalMs: z.number().int().min(100).default(30_000),
    /**
     * A run not finished is checked once it is this old, then again each time this long has passed since
     * its last check: younger runs may still be between storing and queueing.
     */
    reconcileAfterMs: z.number().int().min(100).default(60_000),
    /**
     * How often the workers look for active schedules whose next tick has no job (a failover lost the
     * write that adds it) and put their scheduler back: the longest such a schedule stays stopped, plus
     * one pass. One pass at a time per partition across every worker.
     */
    scheduleRepairIntervalMs: z.number().int().min(100).default(30_000),
    /** Limits per tenant (runs at once, runs created per minute, schedules and their ticks). */
    tenantLimits: tenantLimitsSchema.default({}),
    /**
     * How long a running run's slot lasts without an activation of the run. Each activation renews it; a
     * slot whose lease ran out (its worker died after the run ended, before the release) is reclaimed. A
     * run waiting longer than this for a human stops counting until it resumes.
     */
    runSlotLeaseMs: z
      .number()
      .int()
      .min(1_000)
      .default(10 * 60 * 1000),
    /** After cancelling, how long `ask` waits for the worker to record the final state. */
    cancelGraceMs: z.number().int().min(0).default(10_000),
    /**
     * The HMAC-SHA256 key of signed one-time approval links (at least 32 characters, e.g.
     * `openssl rand -base64 32`): workers sign the links a notification target asks for, the API checks
     * them, so both must have the same. Unset: no links; a target that asks for them fails start-up.
     */
    linkSecret: z.string().min(32, "must be at least 32 characters").optional(),
  })
  .refine((options) => !(options.redisClusterNodes && options.redisSentinels), {
    message: "set either redisClusterNodes or redisSentinels, not both",
    path: ["redisSentinels"],
  })
  .refine((options) => !options.redisSentinels || options.redisSentinelName, {
    message: "redisSentinels needs redisSentinelName (the primary's name in Sentinel)",
    path: ["redisSentinelName"],
  });

export type TRuntimeOptions = Readonly<z.infer<typeof runtimeOptionsSchema>>;
export type TRuntimeOptionsInput = z.input<typeof runtimeOptionsSchema>;

/**
 * The runtime options with their defaults, frozen. A wrong value or an unknown key (a typo, named with
 * the nearest known option) throws TG_INVALID_CONFIG naming the option.
 */
export function parseRuntimeOptions(input: TRuntimeOptionsInput = {}): TRuntimeOptions {
  const parsed = runtimeOptionsSchema.safeParse(input, { error: unknownKeysErrorMap() });
  if (!parsed.success) {
    const issues = toConfigIssues(parsed.error);
    throw new TollgateError("TG_INVALID_CONFIG", `Invalid runtime options: ${describeFieldIssues(issues)}.`, {
      issues,
    });
  }
  return Object.freeze(parsed.data);
}
