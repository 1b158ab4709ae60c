import { z } from "zod";
import { nearestKey, TollgateError, toFieldIssues } from "../errors/index.js";
import { DEFAULT_WORKER_METRICS_PORT } from "../observability/constants.js";
import { allQueueNames, type TQueueName } from "../queue/queue-names.js";
import { runtimeOptionsSchema, tenantLimitsSchema } from "./runtime-options.js";

/** JSON in text; the shape comes from the schema it is piped into. */
const jsonText = z.string().transform((text, context) => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    context.addIssue({ code: "custom", message: "must be JSON" });
    return z.NEVER;
  }
});

/*
 * Every environment variable Tollgate reads, in one schema (STYLE: one zod schema for configuration,
 * parsed once, frozen). docs/CONFIGURATION.md documents each key; a test checks that none is missing.
 * Runtime settings (locks, stalls, retention, ...) reuse the constraints of runtimeOptionsSchema so that
 * a limit is written once, and they have no default here: unset means the runtime's own default.
 */

/** A decimal integer in text; the range comes from the schema it is piped into. */
const integerText = z
  .string()
  .trim()
  .regex(/^-?\d+$/, "must be an integer")
  .transform(Number);

const port = integerText.pipe(z.number().int().min(0).max(65_535));

type TRuntimeShape = typeof runtimeOptionsSchema.shape;
type TIntegerRuntimeOption = {
  [TKey in keyof TRuntimeShape]: z.output<TRuntimeShape[TKey]> extends number ? TKey : never;
}[keyof TRuntimeShape];

function runtimeInteger(key: TIntegerRuntimeOption) {
  return integerText.pipe(runtimeOptionsSchema.shape[key].unwrap()).optional();
}

/** A comma-separated list as its trimmed, non-empty items, then checked by `items`. */
function commaList<TItems extends z.ZodType<unknown, string[]>>(items: TItems) {
  return z
    .string()
    .transform((text) =>
      text
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item !== ""),
    )
    .pipe(items);
}

const queueList = commaList(
  z
    .array(z.enum(allQueueNames as [TQueueName, ...TQueueName[]]))
    .min(1, `must name at least one of ${allQueueNames.join(", ")}`)
    .refine((names) => new Set(names).size === names.length, "names a queue twice"),
);

/** A comma-separated list of partition names (`base`, `0`, `1of3`). */
const partitionList = commaList(runtimeOptionsSchema.shape.servedPartitions.unwrap());

/** A comma-separated `host:port` list. */
const hostPortList = commaList(runtimeOptionsSchema.shape.redisClusterNodes.unwrap());

const booleanText = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(["true", "false", "1", "0", "yes", "no"], { error: "must be true or false" }))
  .transform((text) => text === "true" || text === "1" || text === "yes");

export const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

export const envSchema = z
  .object({
    /** Redis for queues and state. Unset: redis://127.0.0.1:6379 (the demo then starts its own Redis if none answers). */
    REDIS_URL: z.url({ protocol: /^rediss?$/, error: "must be a redis:// or rediss:// URL" }).optional(),
    /** Redis Cluster seed nodes, `host:port,host:port`; set, Tollgate uses the Cluster client and REDIS_URL is ignored. */
    TOLLGATE_REDIS_CLUSTER_NODES: hostPortList.optional(),
    /** Sentinels, `host:port,host:port`, that know TOLLGATE_REDIS_SENTINEL_NAME; set, REDIS_URL is ignored. */
    TOLLGATE_REDIS_SENTINELS: hostPortList.optional(),
    /** The primary's name in Sentinel. */
    TOLLGATE_REDIS_SENTINEL_NAME: z.string().trim().min(1).optional(),
    /** ACL user for cluster nodes and Sentinel-managed primaries (REDIS_URL carries its own). */
    TOLLGATE_REDIS_USERNAME: z.string().min(1).optional(),
    /** Password for cluster nodes and Sentinel-managed primaries (REDIS_URL carries its own). */
    TOLLGATE_REDIS_PASSWORD: z.string().min(1).optional(),
    /** Password of the sentinels themselves. */
    TOLLGATE_REDIS_SENTINEL_PASSWORD: z.string().min(1).optional(),
    /** TLS to cluster nodes and Sentinel-managed primaries (a single node: `rediss://`). @defaultValue false */
    TOLLGATE_REDIS_TLS: booleanText.optional(),
    /** Refuse to start unless Redis's maxmemory-policy is noeviction. @defaultValue true when NODE_ENV=production */
    TOLLGATE_REQUIRE_NOEVICTION: booleanText.optional(),
    /** Prefix of every Redis key and queue; `{tollgate}` (a hash tag) on Redis Cluster. @defaultValue "tollgate" */
    TOLLGATE_PREFIX: runtimeOptionsSchema.shape.prefix.unwrap().optional(),
    /** Partitions new runs spread over (hash-tagged prefixes derived from TOLLGATE_PREFIX). @defaultValue 1 */
    TOLLGATE_PARTITIONS: runtimeInteger("partitions"),
    /** The partition count before the last change: still served until its runs finished. @defaultValue 1 */
    TOLLGATE_PREVIOUS_PARTITIONS: runtimeInteger("previousPartitions"),
    /** Partitions a worker serves, comma-separated (`base`, `0`, `1of3`). @defaultValue all */
    TOLLGATE_SERVED_PARTITIONS: partitionList.optional(),
    /** API tokens inline (format: see docs/CONFIGURATION.md); read by `tollgate api`. */
    TOLLGATE_API_TOKENS: z.string().optional(),
    /** A file holding the API tokens, for secrets mounted as files. */
    TOLLGATE_API_TOKENS_FILE: z.string().min(1).optional(),
    /** The `iss` JWT bearer tokens must carry; setting it turns JWT on (with a JWKS URL or file). */
    TOLLGATE_JWT_ISSUER: z.string().trim().min(1).optional(),
    /** The `aud` JWT bearer tokens must carry; required with TOLLGATE_JWT_ISSUER. */
    TOLLGATE_JWT_AUDIENCE: z.string().trim().min(1).optional(),
    /** The JWKS URL of the issuer: keys cached, refetched on an unknown `kid`. */
    TOLLGATE_JWT_JWKS_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
    /** A JWKS file instead of a URL; re-read on SIGHUP. */
    TOLLGATE_JWT_JWKS_FILE: z.string().min(1).optional(),
    /** The claim holding the roles (an array or a space-separated string). @defaultValue "roles" */
    TOLLGATE_JWT_ROLES_CLAIM: z.string().trim().min(1).optional(),
    /** The claim holding the tenant (absent in a token: "default"). @defaultValue "tenant" */
    TOLLGATE_JWT_TENANT_CLAIM: z.string().trim().min(1).optional(),
    /** The claim holding the subject. @defaultValue "sub" */
    TOLLGATE_JWT_SUBJECT_CLAIM: z.string().trim().min(1).optional(),
    /** Accepted signature algorithms, comma-separated. @defaultValue "RS256,PS256,ES256,EdDSA" */
    TOLLGATE_JWT_ALGORITHMS: z
      .string()
      .transform((text) =>
        text
          .split(",")
          .map((name) => name.trim())
          .filter((name) => name !== ""),
      )
      .pipe(
        z
          .array(
            z.string().regex(/^(RS|PS|ES)(256|384|512)$|^EdDSA$|^Ed25519$/, "an asymmetric JWS algorithm"),
          )
          .min(1),
      )
      .optional(),
    /** An unknown `kid` refetches the JWKS at most this often. @defaultValue 30000 */
    TOLLGATE_JWT_JWKS_COOLDOWN_MS: integerText.pipe(z.number().int().min(0).max(3_600_000)).optional(),
    /** Clock skew allowed on `exp` and `nbf`, in seconds. @defaultValue 5 */
    TOLLGATE_JWT_CLOCK_TOLERANCE_S: integerText.pipe(z.number().int().min(0).max(300)).optional(),
    /** The model API key; with it the worker calls OpenAI (or OPENAI_BASE_URL). */
    OPENAI_API_KEY: z.string().min(1).optional(),
    /** Any OpenAI-compatible endpoint ending in /v1 (vLLM, Ollama, `tollgate model-server`, ...). */
    OPENAI_BASE_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
    /** The model name; unset: the gateway's `model.name`. */
    TOLLGATE_MODEL: z.string().min(1).optional(),
    /** How long one model HTTP attempt may take. @defaultValue 60000 */
    TOLLGATE_MODEL_TIMEOUT_MS: integerText.pipe(z.number().int().min(1)).optional(),
    /** Retries of a failed model request (429, 5xx, connection). @defaultValue 3 */
    TOLLGATE_MODEL_MAX_RETRIES: integerText.pipe(z.number().int().min(0).max(20)).optional(),
    /** Stream model replies (`stream: true`); false for an endpoint that cannot. @defaultValue true */
    TOLLGATE_MODEL_STREAMING: booleanText.optional(),
    /** A streamed reply silent this long is given up as a timeout. @defaultValue 60000 */
    TOLLGATE_MODEL_STREAM_IDLE_TIMEOUT_MS: integerText.pipe(z.number().int().min(1)).optional(),
    /** pino log level. @defaultValue "info" */
    LOG_LEVEL: z.enum(logLevels).default("info"),
    /** Port of `tollgate api`. @defaultValue 3000 */
    TOLLGATE_PORT: port.default(3000),
    /** Address `tollgate api` and `tollgate model-server` listen on; 0.0.0.0 in containers. @defaultValue "127.0.0.1" */
    TOLLGATE_HOST: z.string().trim().min(1).default("127.0.0.1"),
    /** Largest request body `tollgate api` accepts, in bytes. Unset: the API's default. */
    TOLLGATE_BODY_LIMIT_BYTES: integerText.pipe(z.number().int().min(1024)).optional(),
    /**
     * How long a request's headers and body may take to arrive at `tollgate api`; past it: 408
     * TG_REQUEST_TIMEOUT and the connection closed. Unset: the API's default (30000).
     */
    TOLLGATE_REQUEST_TIMEOUT_MS: integerText.pipe(z.number().int().min(100).max(3_600_000)).optional(),
    /** Event streams (SSE) `tollgate api` keeps open at once. Unset: the API's default (1000). */
    TOLLGATE_SSE_MAX_STREAMS: integerText.pipe(z.number().int().min(1).max(1_000_000)).optional(),
    /** Event streams one token subject may keep open at once. Unset: the API's default (20). */
    TOLLGATE_SSE_MAX_STREAMS_PER_TOKEN: integerText.pipe(z.number().int().min(1).max(1_000_000)).optional(),
    /** An event stream whose client has not read what was written for this long is closed. Unset: the API's default (60000). */
    TOLLGATE_SSE_STALL_TIMEOUT_MS: integerText.pipe(z.number().int().min(100).max(3_600_000)).optional(),
    /** Port a worker serves /metrics on. @defaultValue 9464 */
    TOLLGATE_METRICS_PORT: port.default(DEFAULT_WORKER_METRICS_PORT),
    /** Jobs a worker processes at once, per queue. @defaultValue 8 */
    TOLLGATE_CONCURRENCY: integerText.pipe(z.number().int().min(1).max(1000)).default(8),
    /** Queues a worker serves, comma-separated. @defaultValue all: runs,tools,approvals */
    TOLLGATE_QUEUES: queueList.optional(),
    /** Port of `tollgate model-server`. @defaultValue 4010 */
    TOLLGATE_MODEL_SERVER_PORT: port.default(4010),
    /** Request bodies `tollgate model-server` keeps for inspection; older ones are dropped. @defaultValue 1000 */
    TOLLGATE_MODEL_SERVER_MAX_RECORDED_REQUESTS: integerText
      .pipe(z.number().int().min(1).max(1_000_000))
      .optional(),
    /** The API that `tollgate runs` and `tollgate approvals` call. @defaultValue "http://127.0.0.1:3000" */
    TOLLGATE_URL: z
      .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
      .default("http://127.0.0.1:3000"),
    /** The bearer token `tollgate runs` and `tollgate approvals` send. */
    TOLLGATE_TOKEN: z.string().min(1).optional(),
    // The runtime's settings; their defaults and meaning are runtimeOptionsSchema's (docs/CONFIGURATION.md).
    /** How long a worker's lock on an active job lasts. @defaultValue 10000 */
    TOLLGATE_LOCK_DURATION_MS: runtimeInteger("lockDurationMs"),
    /** How often a worker looks for jobs whose lock expired. @defaultValue 5000 */
    TOLLGATE_STALLED_INTERVAL_MS: runtimeInteger("stalledIntervalMs"),
    /** Stalls a job survives before it fails. @defaultValue 3 */
    TOLLGATE_MAX_STALLED_COUNT: runtimeInteger("maxStalledCount"),
    /** How long a run job waits in its slot for the tool jobs it just added, run by the same process. @defaultValue 2 */
    TOLLGATE_FAST_TOOL_WAIT_MS: runtimeInteger("fastToolWaitMs"),
    /** Attempts of a tool job that fails for an infrastructure reason. @defaultValue 3 */
    TOLLGATE_TOOL_JOB_ATTEMPTS: runtimeInteger("toolJobAttempts"),
    /** First retry delay of a failed tool or approval job. @defaultValue 1000 */
    TOLLGATE_JOB_BACKOFF_MS: runtimeInteger("jobBackoffMs"),
    /** How long finished runs, events and jobs are kept. @defaultValue 7 days */
    TOLLGATE_RETENTION_MS: runtimeInteger("retentionMs"),
    /** How long decided approvals stay listable. @defaultValue 90 days */
    TOLLGATE_APPROVAL_RETENTION_MS: runtimeInteger("approvalRetentionMs"),
    /** Events kept per run. @defaultValue 10000 */
    TOLLGATE_EVENTS_MAX_LENGTH: runtimeInteger("eventsMaxLength"),
    /** `text-delta` writes a run may make (its streamed text's allowance). @defaultValue 10000 */
    TOLLGATE_TEXT_DELTAS_MAX_PER_RUN: runtimeInteger("textDeltasMaxPerRun"),
    /** Entries kept on the stream of approval events. @defaultValue 100000 */
    TOLLGATE_APPROVAL_EVENTS_MAX_LENGTH: runtimeInteger("approvalEventsMaxLength"),
    /** Messages of a thread kept as history. @defaultValue 200 */
    TOLLGATE_MAX_HISTORY_MESSAGES: runtimeInteger("maxHistoryMessages"),
    /** A run waiting for its thread checks again after this long. @defaultValue 30000 */
    TOLLGATE_THREAD_RECHECK_MS: runtimeInteger("threadRecheckMs"),
    /** On SIGTERM, how long a worker waits for active jobs. @defaultValue 20000 */
    TOLLGATE_SHUTDOWN_TIMEOUT_MS: runtimeInteger("shutdownTimeoutMs"),
    /** How long a call waits for Redis to become reachable. @defaultValue 5000 */
    TOLLGATE_REDIS_CONNECT_TIMEOUT_MS: runtimeInteger("connectTimeoutMs"),
    /** How long a command of the API's Redis connection may take before it answers 503. @defaultValue 2000 */
    TOLLGATE_REDIS_COMMAND_TIMEOUT_MS: runtimeInteger("commandTimeoutMs"),
    /** How long Redis may leave a process's questions unanswered before its /healthz answers 503. @defaultValue 60000 */
    TOLLGATE_LIVENESS_REDIS_TIMEOUT_MS: runtimeInteger("livenessRedisTimeoutMs"),
    /** How long a thread's history is kept after its last use. @defaultValue 30 days */
    TOLLGATE_THREAD_RETENTION_MS: runtimeInteger("threadRetentionMs"),
    /** How often the reconciler looks for runs no job holds. @defaultValue 30000 */
    TOLLGATE_RECONCILE_INTERVAL_MS: runtimeInteger("reconcileIntervalMs"),
    /** Age (and time since its last check) at which the reconciler checks a run. @defaultValue 60000 */
    TOLLGATE_RECONCILE_AFTER_MS: runtimeInteger("reconcileAfterMs"),
    /** How often the workers put back the job scheduler of an active schedule whose next tick was lost. @defaultValue 30000 */
    TOLLGATE_SCHEDULE_REPAIR_INTERVAL_MS: runtimeInteger("scheduleRepairIntervalMs"),
    /** Limits per tenant, JSON: `{ "default": { "maxRunning": 50, "runsPerMinute": 600 }, ... }`. Unset: none. */
    TOLLGATE_TENANT_LIMITS: jsonText.pipe(tenantLimitsSchema).optional(),
    /** How long a running run's slot lasts without an activation. @defaultValue 600000 */
    TOLLGATE_RUN_SLOT_LEASE_MS: runtimeInteger("runSlotLeaseMs"),
    /** The HMAC key of signed one-time approval links (>= 32 characters); API and workers share it. Unset: no links. */
    TOLLGATE_LINK_SECRET: runtimeOptionsSchema.shape.linkSecret.unwrap().optional(),
    /** After cancelling, how long `ask` waits for the final state. @defaultValue 10000 */
    TOLLGATE_CANCEL_GRACE_MS: runtimeInteger("cancelGraceMs"),
  })
  // The runtime options refuse these too; said here, they come out as one line naming the variable.
  .refine((env) => !(env.TOLLGATE_REDIS_CLUSTER_NODES && env.TOLLGATE_REDIS_SENTINELS), {
    message: "set either TOLLGATE_REDIS_CLUSTER_NODES or TOLLGATE_REDIS_SENTINELS, not both",
    path: ["TOLLGATE_REDIS_SENTINELS"],
  })
  .refine((env) => !env.TOLLGATE_REDIS_SENTINELS || env.TOLLGATE_REDIS_SENTINEL_NAME, {
    message: "TOLLGATE_REDIS_SENTINELS needs TOLLGATE_REDIS_SENTINEL_NAME",
    path: ["TOLLGATE_REDIS_SENTINEL_NAME"],
  });

export type TEnv = Readonly<z.output<typeof envSchema>>;
export type TEnvVariableName = keyof typeof envSchema.shape;

/** The names of every variable the schema reads. */
export const envVariableNames = Object.keys(envSchema.shape) as TEnvVariableName[];

/**
 * Reads the configuration from the environment once. An empty value counts as unset (compose writes
 * `FOO: ${FOO:-}` as an empty string). A bad value throws TG_INVALID_CONFIG whose message names every
 * wrong variable, so the CLI can print one line and exit 1.
 */
export function parseEnv(env: NodeJS.ProcessEnv = process.env): TEnv {
  const present: Record<string, string> = {};
  for (const name of envVariableNames) {
    const value = env[name];
    if (value !== undefined && value.trim() !== "") present[name] = value;
  }
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    // A list's item (TOLLGATE_QUEUES.1) is reported as the variable: that is what the operator sets.
    const issues = toFieldIssues(parsed.error).map((issue) => ({
      ...issue,
      path: issue.path.split(".")[0] ?? "",
    }));
    const lines = issues.map((issue) => `${issue.path}: ${issue.message}`);
    throw new TollgateError("TG_INVALID_CONFIG", `Invalid environment: ${lines.join("; ")}`, { issues });
  }
  return Object.freeze(parsed.data);
}

/**
 * TOLLGATE_* variables the schema does not know: almost always a typo (TOLLGATE_CONCURENCY) whose
 * value would be silently ignored, so the CLI warns about them.
 */
export function unknownTollgateVariables(env: NodeJS.ProcessEnv = process.env): string[] {
  const known = new Set<string>(envVariableNames);
  return Object.keys(env).filter((name) => name.startsWith("TOLLGATE_") && !known.has(name));
}

/**
 * The variable an unknown TOLLGATE_ name most likely meant (TOLLGATE_CONCURENCY: TOLLGATE_CONCURRENCY),
 * when one is close. Unknown variables are warned about, not refused: a deployment's environment may
 * hold TOLLGATE_ names of its own (scripts, tests) that Tollgate never reads.
 */
export function nearestTollgateVariable(name: string): string | undefined {
  return nearestKey(name, envVariableNames);
}
