import type { TEnv } from "./env.js";
import type { TRuntimeOptionsInput } from "./runtime-options.js";

/** Which runtime option each environment variable sets. */
const runtimeOptionVariables = {
  redisUrl: "REDIS_URL",
  prefix: "TOLLGATE_PREFIX",
  partitions: "TOLLGATE_PARTITIONS",
  previousPartitions: "TOLLGATE_PREVIOUS_PARTITIONS",
  servedPartitions: "TOLLGATE_SERVED_PARTITIONS",
  redisClusterNodes: "TOLLGATE_REDIS_CLUSTER_NODES",
  redisSentinels: "TOLLGATE_REDIS_SENTINELS",
  redisSentinelName: "TOLLGATE_REDIS_SENTINEL_NAME",
  redisUsername: "TOLLGATE_REDIS_USERNAME",
  redisPassword: "TOLLGATE_REDIS_PASSWORD",
  redisSentinelPassword: "TOLLGATE_REDIS_SENTINEL_PASSWORD",
  redisTls: "TOLLGATE_REDIS_TLS",
  requireNoEviction: "TOLLGATE_REQUIRE_NOEVICTION",
  lockDurationMs: "TOLLGATE_LOCK_DURATION_MS",
  stalledIntervalMs: "TOLLGATE_STALLED_INTERVAL_MS",
  maxStalledCount: "TOLLGATE_MAX_STALLED_COUNT",
  fastToolWaitMs: "TOLLGATE_FAST_TOOL_WAIT_MS",
  toolJobAttempts: "TOLLGATE_TOOL_JOB_ATTEMPTS",
  jobBackoffMs: "TOLLGATE_JOB_BACKOFF_MS",
  retentionMs: "TOLLGATE_RETENTION_MS",
  approvalRetentionMs: "TOLLGATE_APPROVAL_RETENTION_MS",
  threadRetentionMs: "TOLLGATE_THREAD_RETENTION_MS",
  reconcileIntervalMs: "TOLLGATE_RECONCILE_INTERVAL_MS",
  reconcileAfterMs: "TOLLGATE_RECONCILE_AFTER_MS",
  scheduleRepairIntervalMs: "TOLLGATE_SCHEDULE_REPAIR_INTERVAL_MS",
  eventsMaxLength: "TOLLGATE_EVENTS_MAX_LENGTH",
  textDeltasMaxPerRun: "TOLLGATE_TEXT_DELTAS_MAX_PER_RUN",
  approvalEventsMaxLength: "TOLLGATE_APPROVAL_EVENTS_MAX_LENGTH",
  maxHistoryMessages: "TOLLGATE_MAX_HISTORY_MESSAGES",
  threadRecheckMs: "TOLLGATE_THREAD_RECHECK_MS",
  shutdownTimeoutMs: "TOLLGATE_SHUTDOWN_TIMEOUT_MS",
  connectTimeoutMs: "TOLLGATE_REDIS_CONNECT_TIMEOUT_MS",
  commandTimeoutMs: "TOLLGATE_REDIS_COMMAND_TIMEOUT_MS",
  livenessRedisTimeoutMs: "TOLLGATE_LIVENESS_REDIS_TIMEOUT_MS",
  cancelGraceMs: "TOLLGATE_CANCEL_GRACE_MS",
  tenantLimits: "TOLLGATE_TENANT_LIMITS",
  runSlotLeaseMs: "TOLLGATE_RUN_SLOT_LEASE_MS",
  linkSecret: "TOLLGATE_LINK_SECRET",
} as const satisfies { [TKey in keyof Required<TRuntimeOptionsInput>]: keyof TEnv };

/**
 * The runtime options the environment sets. Unset variables are left out, so the runtime's own
 * defaults (runtimeOptionsSchema) stay the single place where they are written.
 */
export function runtimeOptionsFromEnv(env: TEnv): TRuntimeOptionsInput {
  const options: Record<string, unknown> = {};
  for (const [option, variable] of Object.entries(runtimeOptionVariables)) {
    const value = env[variable];
    if (value !== undefined) options[option] = value;
  }
  return options as TRuntimeOptionsInput;
}
