import { Queue } from "bullmq";
import {
  parseRuntimeOptions,
  type TRuntimeOptions,
  type TRuntimeOptionsInput,
} from "../config/runtime-options.js";
import { TollgateError } from "../errors/index.js";
import type { IGateway } from "../gateway/index.js";
import type { ITracing } from "../observability/tracing/index.js";
import { queueNames } from "../queue/index.js";
import {
  ApprovalEventLog,
  ApprovalStore,
  ApprovalVotes,
  basePartition,
  createRedis,
  defineScripts,
  EventStore,
  type IKeys,
  type IPartition,
  type ITollgateRedis,
  keysFor,
  McpToolDirectory,
  ModelPauses,
  prefixHasHashTag,
  RedisContact,
  RunStore,
  redisTargetFrom,
  ScheduleAllowance,
  ScheduleStore,
  type TConnectionRole,
  TenantLimits,
  TextDeltaLog,
  ThreadStore,
  ToolListStore,
  type TRedisTarget,
  UsageStore,
  whenRedisReady,
} from "../store/index.js";

export interface IQueues {
  runs: Queue;
  tools: Queue;
  approvals: Queue;
  /** Webhook deliveries and approval reminders. */
  notifications: Queue;
}

/** Everything a producer or a worker shares: the gateway, options, Redis, queues and stores. */
export interface ITollgateRuntime {
  readonly gateway: IGateway;
  /** The runtime options, with `prefix` the partition's own. */
  readonly options: TRuntimeOptions;
  /** The partition this runtime's queues and stores belong to (`base` when there are none). */
  readonly partition: IPartition;
  /** The partition's keys. */
  readonly keys: IKeys;
  /** Deployment-wide keys (limits, model pauses, usage), under the configured prefix whatever the partition. */
  readonly deploymentKeys: IKeys;
  /** One node, a cluster or a Sentinel-managed primary: every connection is made the same way. */
  readonly redisTarget: TRedisTarget;
  readonly redis: ITollgateRedis;
  /** Whether Redis still answers on `redis` (what `/healthz` says); shared by the partitions of a process. */
  readonly redisContact: RedisContact;
  readonly queues: IQueues;
  readonly runs: RunStore;
  readonly events: EventStore;
  /** A run's streamed text (`text-delta`, `step-retracted`), in its event stream. */
  readonly textDeltas: TextDeltaLog;
  readonly threads: ThreadStore;
  readonly approvals: ApprovalStore;
  /** A quorum's votes on approvals (approver rules with `quorum` above 1). */
  readonly approvalVotes: ApprovalVotes;
  /** The stream of approval events: read by followers, appended to by features with types of their own. */
  readonly approvalEvents: ApprovalEventLog;
  /** Per-tenant limits: runs running at once, runs created per minute. */
  readonly limits: TenantLimits;
  /** Fleet-wide pauses of model calls after a 429 with retry-after. */
  readonly modelPauses: ModelPauses;
  /** Tokens per tenant and model, per day. */
  readonly usage: UsageStore;
  /** Spans for runs, model calls, tool calls and approvals; undefined while tracing is off. */
  readonly tracing: ITracing | undefined;
  /** Schedules whose ids name this partition; their ticks come from job schedulers on its runs queue. */
  readonly schedules: ScheduleStore;
  /** A tenant's schedules as its limits count them, across partitions (deployment-wide). */
  readonly scheduleAllowance: ScheduleAllowance;
  /** The MCP tool lists runs pinned, by hash. */
  readonly toolLists: ToolListStore;
  /** The MCP tools the workers mounted, per server, as they published them (deployment-wide). */
  readonly mcpTools: McpToolDirectory;
  now(): number;
  /**
   * Resolves once the main connection is ready. A client connection does not queue commands while
   * disconnected (it fails fast), so callers wait here first; past `connectTimeoutMs` it throws
   * TG_REDIS_UNAVAILABLE.
   */
  ready(): Promise<void>;
  /**
   * The runs queue of the partition a run id names: a tenant's freed slot may wake a run of another
   * partition. Its own runs queue when nothing else is known.
   */
  runQueueOf(runId: string): Queue;
  /**
   * A new connection for blocking reads or subscriptions; the caller closes it. `connectionName` names
   * it in CLIENT LIST, on every node of a cluster and again after each reconnection.
   */
  duplicateConnection(options?: { connectionName?: string }): ITollgateRedis;
  close(): Promise<void>;
}

export interface IRuntimeInit {
  gateway: IGateway;
  options?: TRuntimeOptionsInput;
  /** worker: rides out Redis outages; client: fails fast (API requests). */
  role: TConnectionRole;
  /** Injected for tests; defaults to Date.now. */
  now?: () => number;
  /** Told of connection errors (Redis down, reconnecting); throttle before logging. */
  onConnectionError?: (error: Error) => void;
  /** The partition to serve; `base` (the configured prefix) when absent. */
  partition?: IPartition;
  /** Connections shared by every partition of a process; closed by their owner, not by this runtime. */
  connections?: IRuntimeConnections;
  /** Finds the runs queue of another partition (see `runQueueOf`). */
  runQueueOf?: (runId: string) => Queue | undefined;
  /** Tracing, when on: BullMQ's telemetry on every queue, and Tollgate's spans. */
  tracing?: ITracing | undefined;
}

/** The two connections a runtime issues commands on: its stores', and its queues'. */
export interface IRuntimeConnections {
  redis: ITollgateRedis;
  queueConnection: ITollgateRedis;
  /** Whether Redis still answers on `redis`. */
  redisContact: RedisContact;
}

/**
 * The connections of a runtime: a client connection gets a command timeout (it serves requests, and a
 * request must not hang); BullMQ queues get their own, passed as an ioredis instance as BullMQ
 * recommends for ESM builds.
 */
export function createRuntimeConnections(
  options: TRuntimeOptions,
  role: TConnectionRole,
  onError: (error: Error) => void,
): IRuntimeConnections {
  const redisTarget = redisTargetFrom(options);
  // Only a client connection gets a command timeout: it serves requests, and a request must not hang.
  const commandTimeout = role === "client" ? { commandTimeout: options.commandTimeoutMs } : {};
  // Auto-pipelining: the commands issued in one turn of the event loop (by many runs at once, or a
  // run's checkpoint with the usage count before it) leave in one write. Socket writes were the
  // largest share of a worker's CPU per run. Order on the connection is kept among auto-pipelined
  // commands.
  const redis = createRedis(redisTarget, role, { ...commandTimeout, enableAutoPipelining: true }, onError);
  return {
    redis,
    // BullMQ queues get their own connection: ioredis instances are passed (not options) as BullMQ
    // recommends for ESM builds, and a queue's connection must tolerate its blocking-free commands.
    queueConnection: createRedis(redisTarget, "worker", {}, onError),
    redisContact: new RedisContact(redis, options.livenessRedisTimeoutMs),
  };
}

export function createRuntime(init: IRuntimeInit): ITollgateRuntime {
  const deploymentOptions = parseRuntimeOptions(init.options);
  const partition = init.partition ?? basePartition(deploymentOptions.prefix);
  const options: TRuntimeOptions = Object.freeze({ ...deploymentOptions, prefix: partition.prefix });
  const now = init.now ?? Date.now;
  const keys = keysFor(partition.prefix);
  // Limits, model pauses and usage are the deployment's, whatever the partition: under the configured prefix.
  const deploymentKeys = keysFor(deploymentOptions.prefix);
  const redisTarget = redisTargetFrom(options);
  if (redisTarget.kind === "cluster" && !prefixHasHashTag(deploymentOptions.prefix)) {
    throw new TollgateError(
      "TG_INVALID_CONFIG",
      `On a Redis Cluster the prefix needs a hash tag, such as "{${deploymentOptions.prefix}}" (TOLLGATE_PREFIX): ` +
        `"${deploymentOptions.prefix}" would spread one queue's keys over several slots, and BullMQ's scripts ` +
        "would fail with CROSSSLOT.",
      { prefix: deploymentOptions.prefix },
    );
  }
  const onError = init.onConnectionError ?? (() => undefined);
  const ownsConnections = init.connections === undefined;
  const { redis, queueConnection, redisContact } =
    init.connections ?? createRuntimeConnections(options, init.role, onError);
  const queueOptions = {
    connection: queueConnection,
    prefix: options.prefix,
    // Only when tracing is on: BullMQ without telemetry takes no span path at all.
    ...(init.tracing ? { telemetry: init.tracing.bullmq } : {}),
  };
  const queues: IQueues = {
    runs: new Queue(queueNames.runs, queueOptions),
    tools: new Queue(queueNames.tools, queueOptions),
    approvals: new Queue(queueNames.approvals, queueOptions),
    notifications: new Queue(queueNames.notifications, queueOptions),
  };
  // A Queue re-emits its connection's errors; with no listener BullMQ prints each one with console.error,
  // a raw line per reconnect attempt beside the JSON log. They go where the runtime's own errors go.
  for (const queue of Object.values(queues)) queue.on("error", onError);
  const duplicates = new Set<ITollgateRedis>();
  const runs = new RunStore(redis, keys, {
    retentionMs: options.retentionMs,
    eventsMaxLength: runStreamMaxLength(options),
    maxHistoryMessages: options.maxHistoryMessages,
    threadRetentionMs: options.threadRetentionMs,
    now,
  });
  return {
    gateway: init.gateway,
    options,
    partition,
    keys,
    deploymentKeys,
    redisTarget,
    redis,
    redisContact,
    queues,
    runs,
    events: new EventStore(redis, keys),
    textDeltas: new TextDeltaLog(redis, keys, { maxPerRun: options.textDeltasMaxPerRun, now }),
    threads: new ThreadStore(redis, keys, {
      maxHistoryMessages: options.maxHistoryMessages,
      threadRetentionMs: options.threadRetentionMs,
      retentionMs: options.retentionMs,
    }),
    approvals: new ApprovalStore(redis, keys, {
      eventsMaxLength: runStreamMaxLength(options),
      approvalEventsMaxLength: options.approvalEventsMaxLength,
      approvalRetentionMs: options.approvalRetentionMs,
      now,
      awaitedApprovalIdsOf: (runId) => runs.awaitedApprovalIds(runId),
    }),
    approvalEvents: new ApprovalEventLog(redis, keys, { maxLength: options.approvalEventsMaxLength }),
    approvalVotes: new ApprovalVotes(redis, keys, {
      approvalEventsMaxLength: options.approvalEventsMaxLength,
      now,
    }),
    limits: new TenantLimits(redis, deploymentKeys, options.tenantLimits, options.runSlotLeaseMs),
    modelPauses: new ModelPauses(redis, deploymentKeys),
    usage: new UsageStore(redis, deploymentKeys),
    tracing: init.tracing,
    schedules: new ScheduleStore(redis, keys),
    scheduleAllowance: new ScheduleAllowance(redis, deploymentKeys),
    toolLists: new ToolListStore(redis, keys),
    mcpTools: new McpToolDirectory(redis, deploymentKeys, now),
    now,
    runQueueOf: (runId) => init.runQueueOf?.(runId) ?? queues.runs,
    ready: () => whenRedisReady(redis, options.connectTimeoutMs),
    duplicateConnection(connectionOptions = {}) {
      const extra = connectionOptions.connectionName
        ? { connectionName: connectionOptions.connectionName }
        : {};
      const connection = defineScripts(createRedis(redisTarget, "worker", extra, onError));
      duplicates.add(connection);
      connection.once("end", () => duplicates.delete(connection));
      return connection;
    },
    async close() {
      await Promise.allSettled([
        queues.runs.close(),
        queues.tools.close(),
        queues.approvals.close(),
        queues.notifications.close(),
      ]);
      for (const connection of duplicates) connection.disconnect();
      if (ownsConnections) await Promise.allSettled([redis.quit(), queueConnection.quit()]);
    },
  };
}

/**
 * What a run's event stream is trimmed at: its lifecycle events' allowance plus its streamed text's,
 * counted apart (the text's writes stop at theirs), so text never pushes a lifecycle event out.
 */
export function runStreamMaxLength(options: {
  eventsMaxLength: number;
  textDeltasMaxPerRun: number;
}): number {
  return options.eventsMaxLength + options.textDeltasMaxPerRun;
}
