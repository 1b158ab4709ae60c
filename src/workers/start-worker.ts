import { type Job, Worker } from "bullmq";
import type { Registry } from "prom-client";
import type { TRuntimeOptionsInput } from "../config/runtime-options.js";
import { runtimeWithTargetFromEnv } from "../config/runtime-target-from-env.js";
import { endRunOutsideLoop } from "../engine/index.js";
import { assertKnownKeys } from "../errors/index.js";
import type { IGateway } from "../gateway/index.js";
import { assertLinkSecretFor } from "../links/index.js";
import { McpPool } from "../mcp/index.js";
import type { ILLMClientConfig } from "../model/index.js";
import { startNotifications } from "../notifications/start-notifications.js";
import {
  createLogger,
  createMetrics,
  type IReadinessProbe,
  type Logger,
  type TollgateMetrics,
  throttledConnectionWarning,
} from "../observability/index.js";
import { createTracing, type ITracingOptions } from "../observability/tracing/index.js";
import { allQueueNames, queueNames, runJobNames, type TQueueName } from "../queue/index.js";
import { CancelBus } from "../runtime/cancel-bus.js";
import { ModelPauseWatch } from "../runtime/model-pause-watch.js";
import { partitionMetricsSources, queueAcrossPartitions } from "../runtime/partition-metrics.js";
import { createPartitionSet } from "../runtime/partition-set.js";
import { checkRedisServer } from "../runtime/redis-server-check.js";
import { connectSlackTargets } from "../slack/index.js";
import { createApprovalProcessor } from "./approval-processor.js";
import { ActiveJobs, shutdownWithHandBack } from "./hand-back-shutdown.js";
import { LocalToolCompletions } from "./local-tool-completions.js";
import { McpToolPublisher } from "./mcp-tool-publisher.js";
import { createModelRouter } from "./model-routing.js";
import { withArityOf } from "./processor-arity.js";
import { scheduleReconciler } from "./reconcile-runs.js";
import { endingHandlers } from "./run-effect-handlers.js";
import { createRunProcessor } from "./run-processor.js";
import { startScheduleRepair } from "./schedule-repair.js";
import { TextDeltaFlushClock } from "./text-delta-flush-clock.js";
import { createToolIsolation } from "./tool-isolation.js";
import { createToolProcessor } from "./tool-processor.js";
import { tracedApprovalProcessor, tracedRunProcessor, tracedToolProcessor } from "./traced-processors.js";
import type { IWorkerContext } from "./worker-context.js";
import { attachWorkerInternals, type IServedPartition } from "./worker-internals.js";
import { WorkerReadiness } from "./worker-readiness.js";

export interface IStartWorkerOptions {
  gateway: IGateway;
  /** Which queues this process serves. @defaultValue all three */
  queues?: readonly TQueueName[];
  /** Jobs processed at once per queue. @defaultValue 8 */
  concurrency?: number;
  /**
   * Redis, prefix, partitions, lock and stall settings. Where the Redis target is left out, it is read from
   * `env` as the CLI reads it (REDIS_URL, TOLLGATE_PREFIX, partitions, cluster or Sentinel nodes: see
   * docs/LIBRARY.md); what is given here wins.
   */
  runtime?: TRuntimeOptionsInput;
  /**
   * The environment the Redis target left out of `runtime` is read from, and the Slack targets' bot tokens
   * (the variables each target names). @defaultValue process.env
   */
  env?: NodeJS.ProcessEnv;
  /**
   * The partitions this process serves: `base`, an index of the current layout, or `<index>of<count>`
   * (a partition of an older layout to drain). @defaultValue the runtime's `servedPartitions`, else every
   * partition of the current and previous layouts
   */
  partitions?: readonly string[];
  /** The model endpoint. @defaultValue the gateway's model name, OpenAI's URL */
  model?: Partial<ILLMClientConfig>;
  logger?: Logger;
  /** Where this process's metrics go; none are recorded without it. */
  registry?: Registry;
  /**
   * The gateway's module (a path or file URL), for tools isolated in threads or child processes, when the
   * gateway does not name its own `module`. The CLI passes the path it loaded.
   */
  gatewayModule?: string;
  /** Stop on SIGTERM/SIGINT. @defaultValue true */
  handleSignals?: boolean;
  /** Readiness for /readyz, when the caller serves probes before the worker has started. */
  readiness?: WorkerReadiness;
  /**
   * OpenTelemetry: spans for each run activation, model call, tool call and approval wait, in the trace
   * the run's job carries (see docs/TRACING.md). Off when absent. `startTracingFromEnv` builds it from
   * the standard OTEL_* variables.
   */
  tracing?: ITracingOptions;
}

/**
 * What an operator holds of a running worker: what it serves, whether it is ready, and how to stop it.
 * Its runtimes and BullMQ workers stay inside (worker-internals.ts).
 */
export interface ITollgateWorker {
  /** The queues this process serves (`runs`, `tools`, `approvals`, and `notifications` with webhook targets). */
  readonly queues: readonly TQueueName[];
  /** The partitions served, by name (`base`, an index of the layout, or `<index>of<count>`). */
  readonly partitions: readonly string[];
  /**
   * Ready once processors run; not while starting or draining, nor while Redis takes no write. It is
   * what `/readyz` answers: pass it as `probes` to `startMetricsServer`.
   */
  readonly readiness: IReadinessProbe;
  /** Stops taking jobs, waits for active ones up to shutdownTimeoutMs, then hands the rest back. */
  close(): Promise<void>;
}

/** Every key of IStartWorkerOptions (`satisfies` keeps the two the same set): anything else is a typo. */
const startWorkerOptionKeys = Object.keys({
  gateway: true,
  queues: true,
  concurrency: true,
  runtime: true,
  env: true,
  partitions: true,
  model: true,
  logger: true,
  registry: true,
  gatewayModule: true,
  handleSignals: true,
  readiness: true,
  tracing: true,
} satisfies Record<keyof IStartWorkerOptions, true>);

/** After the shutdown timeout: time to hand jobs back and close connections before the process exits anyway. */
const exitMarginMs = 5_000;

/** Starts BullMQ workers for the run, tool and approval queues of one gateway. */
export async function startWorker(options: IStartWorkerOptions): Promise<ITollgateWorker> {
  assertKnownKeys(options, startWorkerOptionKeys, "TG_INVALID_CONFIG", "Invalid worker options");
  const logger = options.logger ?? createLogger({ name: "tollgate-worker" });
  // Before any connection opens: a target asking for links this worker cannot sign is a start-up error.
  assertLinkSecretFor(options.gateway.settings.notifications, options.runtime?.linkSecret);
  // Likewise a Slack target whose bot token is not in the environment, on a worker that would post.
  const postsToSlack = (options.queues ?? allQueueNames).includes(queueNames.approvals);
  const slack = connectSlackTargets({
    settings: postsToSlack ? options.gateway.settings.notifications : undefined,
    env: options.env ?? process.env,
    role: "worker",
    logger,
    timeoutMs: options.gateway.settings.notifications?.delivery.timeoutMs ?? 10_000,
  });
  const tracing = options.tracing ? createTracing(options.tracing) : undefined;
  const partitions = createPartitionSet({
    ...(tracing ? { tracing } : {}),
    gateway: options.gateway,
    options: runtimeWithTargetFromEnv(options.runtime, options.env ?? process.env),
    role: "worker",
    onConnectionError: throttledConnectionWarning(logger),
    ...(options.partitions ? { extra: options.partitions } : {}),
  });
  const servedRuntimes = partitions.served(options.partitions ?? partitions.options.servedPartitions);
  const runtime = servedRuntimes[0]!;
  const readiness = options.readiness ?? new WorkerReadiness();
  readiness.attach(servedRuntimes);
  // Refuses a cluster node given as a single node, and an evicting Redis when required, before any job.
  // The partitions share their connections, so one check covers every node.
  await checkRedisServer(runtime, { logger }).catch(async (error: unknown) => {
    await partitions.close();
    throw error;
  });
  const sources = partitionMetricsSources(servedRuntimes);
  const metrics: TollgateMetrics | undefined = options.registry
    ? createMetrics(options.registry, {
        pendingApprovals: sources.pendingApprovals,
        // The deployment's prefix, whatever the partition: alerts and dashboards select on it.
        prefix: partitions.options.prefix,
      })
    : undefined;
  const cancelBus = await CancelBus.start(
    runtime,
    servedRuntimes.map((partition) => partition.keys.cancelChannel()),
  );
  // Model pauses are the deployment's: one watch, whatever the partitions served.
  const modelPauses = await ModelPauseWatch.start(runtime);
  const models = createModelRouter({
    gateway: options.gateway,
    overrides: options.model,
    pacing: { runtime, modelPauses, metrics, logger },
    metrics,
  });
  // An MCP server that cannot be reached does not stop the worker: its tools are absent until it answers.
  // What it mounts is published for the API, which holds no MCP connection (GET /v1/tools, run requests).
  const mcpPublisher = new McpToolPublisher(runtime.mcpTools, logger);
  const mcp = await startMcpPool(options.gateway, logger, metrics, mcpPublisher);
  if (mcp)
    readiness.watchMcp(() => mcp.states().flatMap((state) => (state.status === "up" ? [] : [state.server])));
  const concurrency = options.concurrency ?? 8;
  const served = options.queues ?? allQueueNames;
  const isolation = served.includes(queueNames.tools)
    ? await createToolIsolation(options.gateway, options.gatewayModule, concurrency)
    : undefined;
  const activeJobs = new ActiveJobs();
  // Busy slots are counted per queue over every partition: BullMQ's concurrency is per Worker, so a
  // process serving P partitions has P times `concurrency` slots per queue.
  const slotCounters = new Map<TQueueName, ISlotCounter>();
  const slotsOf = (name: TQueueName) => {
    let counter = slotCounters.get(name);
    if (!counter) {
      counter = { busy: 0, total: concurrency * servedRuntimes.length };
      slotCounters.set(name, counter);
    }
    return counter;
  };
  const allWorkers = new Map<string, Worker>();
  const servedWorkers: IServedPartition[] = [];
  const contexts: IWorkerContext[] = [];
  const textDeltaClock = new TextDeltaFlushClock();
  const notifications: Array<Awaited<ReturnType<typeof startNotifications>>> = [];
  for (const partitionRuntime of servedRuntimes) {
    const context: IWorkerContext = {
      runtime: partitionRuntime,
      models,
      cancelBus,
      modelPauses,
      logger,
      textDeltaClock,
      metrics,
      ...(mcp ? { mcp } : {}),
      ...(served.includes(queueNames.tools) ? { localTools: new LocalToolCompletions() } : {}),
    };
    contexts.push(context);
    const processors = tracing
      ? {
          [queueNames.runs]: tracedRunProcessor(partitionRuntime, createRunProcessor(context)),
          [queueNames.tools]: tracedToolProcessor(tracing, createToolProcessor(context, isolation?.run)),
          [queueNames.approvals]: tracedApprovalProcessor(
            partitionRuntime,
            tracing,
            createApprovalProcessor(context),
          ),
        }
      : {
          [queueNames.runs]: createRunProcessor(context),
          [queueNames.tools]: createToolProcessor(context, isolation?.run),
          [queueNames.approvals]: createApprovalProcessor(context),
        };
    const workers = new Map<TQueueName, Worker>();
    const partition = partitionRuntime.partition.name;
    // Before any approval can be parked here, so that the dispatcher's group sees every request: each
    // partition has its own approval event stream, so its own dispatcher.
    const notificationSettings = options.gateway.settings.notifications;
    const partitionNotifications =
      notificationSettings && served.includes(queueNames.approvals)
        ? await startNotifications({
            runtime: partitionRuntime,
            settings: notificationSettings,
            logger,
            metrics,
            slack,
            workerOptions: {
              prefix: partitionRuntime.options.prefix,
              concurrency,
              lockDuration: partitionRuntime.options.lockDurationMs,
              stalledInterval: partitionRuntime.options.stalledIntervalMs,
              maxStalledCount: partitionRuntime.options.maxStalledCount,
            },
            wrap: (processor) =>
              activeJobs.track(
                metrics
                  ? countingSlots(
                      processor,
                      queueNames.notifications,
                      slotsOf(queueNames.notifications),
                      metrics,
                    )
                  : processor,
              ),
          })
        : undefined;
    if (partitionNotifications) {
      notifications.push(partitionNotifications);
      workers.set(queueNames.notifications, partitionNotifications.worker);
      allWorkers.set(`${queueNames.notifications}@${partition}`, partitionNotifications.worker);
    }
    for (const name of served) {
      const queueProcessor = processors[name as keyof typeof processors];
      const processor = activeJobs.track(
        metrics ? countingSlots(queueProcessor, name, slotsOf(name), metrics) : queueProcessor,
      );
      const worker = new Worker(name, processor, {
        connection: partitionRuntime.duplicateConnection(),
        prefix: partitionRuntime.options.prefix,
        concurrency,
        lockDuration: partitionRuntime.options.lockDurationMs,
        stalledInterval: partitionRuntime.options.stalledIntervalMs,
        maxStalledCount: partitionRuntime.options.maxStalledCount,
        // BullMQ's queue spans, only while tracing is on.
        ...(tracing ? { telemetry: tracing.bullmq } : {}),
      });
      worker.on("error", (error) => logger.error({ err: error, queue: name, partition }, "worker error"));
      worker.on("stalled", (jobId) => {
        metrics?.stalledJob(name);
        logger.warn(
          { queue: name, partition, jobId },
          "job stalled: its worker stopped renewing the lock; it runs again",
        );
      });
      worker.on("failed", (job, error) => void onFailed(context, name, job, error));
      const localTools = context.localTools;
      if (name === queueNames.tools && localTools)
        worker.on("completed", (job) => localTools.completed(job.id));
      workers.set(name, worker);
      allWorkers.set(`${name}@${partition}`, worker);
    }
    servedWorkers.push({ runtime: partitionRuntime, workers });
  }
  if (metrics) {
    metrics.watchQueues([
      ...sources.queues,
      ...(notifications.length > 0
        ? [
            {
              name: queueNames.notifications,
              queue: queueAcrossPartitions(servedRuntimes.map((served) => served.queues.notifications)),
            },
          ]
        : []),
    ]);
  }
  await Promise.all([...allWorkers.values()].map((worker) => worker.waitUntilReady()));
  if (served.includes(queueNames.runs)) await Promise.all(contexts.map(scheduleReconciler));
  // Schedule ticks are jobs of the runs queue: the workers that serve it repair stranded schedules.
  const scheduleRepair = startScheduleRepair(served.includes(queueNames.runs) ? contexts : []);
  readiness.markStarted();
  logger.info(
    {
      queues: served,
      concurrency,
      prefix: partitions.options.prefix,
      partitions: servedRuntimes.map((partition) => partition.partition.name),
    },
    "worker started",
  );
  const context = contexts[0]!;

  let closing: Promise<void> | undefined;
  const close = () => {
    readiness.markDraining();
    scheduleRepair.stop();
    closing ??= Promise.all(notifications.map((dispatcher) => dispatcher.stopDispatching())).then(() =>
      shutdownWithHandBack({
        context,
        workers: allWorkers,
        activeJobs,
        isolation,
        timeoutMs: runtime.options.shutdownTimeoutMs,
        closeConnections: async () => {
          mcpPublisher.stop();
          await mcp?.close();
          await partitions.close();
        },
      }),
    );
    return closing;
  };
  if (options.handleSignals !== false) {
    const onSignal = (signal: NodeJS.Signals) => {
      logger.info({ signal }, "stopping: no new jobs; waiting for active ones");
      void close().then(() => process.exit(0));
      // Every shutdown step is bounded; this is the last resort should one still hang.
      setTimeout(() => process.exit(1), runtime.options.shutdownTimeoutMs + exitMarginMs).unref();
    };
    process.once("SIGTERM", onSignal);
    process.once("SIGINT", onSignal);
  }
  const handle: ITollgateWorker = {
    queues: [...new Set(servedWorkers.flatMap(({ workers }) => [...workers.keys()]))],
    partitions: servedRuntimes.map((partition) => partition.partition.name),
    readiness,
    close,
  };
  attachWorkerInternals(handle, {
    runtime,
    workers: servedWorkers[0]!.workers,
    served: servedWorkers,
    partitions,
  });
  return handle;
}

/** One queue's slots in this process, over every partition it serves. */
interface ISlotCounter {
  busy: number;
  total: number;
}

/**
 * Counts busy slots around the processor itself: a run job that moves to waiting-children or delayed
 * ends its activation without a completed/failed event, so events would let the count drift.
 */
function countingSlots<
  TProcessor extends (job: Job, token?: string, signal?: AbortSignal) => Promise<unknown>,
>(processor: TProcessor, queue: TQueueName, slots: ISlotCounter, metrics: TollgateMetrics): TProcessor {
  metrics.workerSlots(queue, slots.busy, slots.total);
  return withArityOf<TProcessor>(processor, (async (job: Job, token?: string, signal?: AbortSignal) => {
    metrics.workerSlots(queue, ++slots.busy, slots.total);
    try {
      return await processor(job, token, signal);
    } finally {
      metrics.workerSlots(queue, --slots.busy, slots.total);
    }
  }) as (job: Job, token?: string, signal?: AbortSignal) => ReturnType<TProcessor>);
}

/** A run job that fails for good (not a tool error: an infrastructure fault) ends the run as failed. */
async function onFailed(context: IWorkerContext, queue: TQueueName, job: Job | undefined, error: Error) {
  context.logger.error({ err: error, queue, jobId: job?.id, attempts: job?.attemptsMade }, "job failed");
  if (queue !== queueNames.runs || !job || job.name !== runJobNames.run) return;
  if (job.attemptsMade < (job.opts.attempts ?? 1)) return;
  try {
    const stored = await context.runtime.runs.load(String(job.data?.runId));
    if (!stored) return;
    // The same ending as any other: final save, release from the thread, the next run woken. A run that
    // had already finished (its worker died after the final save) is only released.
    await endRunOutsideLoop(
      stored.state,
      {
        fail: {
          code: "TG_RUN_FAILED",
          message: "The run failed for an infrastructure reason; see the worker log.",
        },
      },
      endingHandlers(context, { current: stored }),
      context.runtime.now(),
    );
  } catch (markError) {
    context.logger.error({ err: markError, jobId: job.id }, "could not mark the failed run");
  }
}

/** The worker's MCP connections, started (each server's first attempt made), when the gateway mounts any. */
async function startMcpPool(
  gateway: IGateway,
  logger: Logger,
  metrics: TollgateMetrics | undefined,
  publisher: McpToolPublisher,
): Promise<McpPool | undefined> {
  if (Object.keys(gateway.settings.mcpServers).length === 0) return undefined;
  const pool = new McpPool({
    servers: gateway.settings.mcpServers,
    logger,
    metrics,
    onToolsRead: (server, tools) => publisher.publish(server, tools),
  });
  await pool.start();
  publisher.renewEvery(() => pool.upServers());
  for (const state of pool.states()) {
    if (state.status !== "up")
      logger.warn({ mcpServer: state.server, error: state.error }, "MCP server down at start-up");
  }
  return pool;
}
