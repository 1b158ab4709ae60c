import { type Job, Worker } from "bullmq";
import type { Registry } from "prom-client";
import type { TRuntimeOptionsInput } from "../config/runtime-options.js";
import { endRunOutsideLoop } from "../engine/index.js";
import type { IGateway } from "../gateway/index.js";
import { type ILLMClientConfig, LLMClient } from "../model/index.js";
import { startNotifications } from "../notifications/start-notifications.js";
import {
  createLogger,
  createMetrics,
  type Logger,
  type TollgateMetrics,
  throttledConnectionWarning,
} from "../observability/index.js";
import { allQueueNames, queueNames, runJobNames, type TQueueName } from "../queue/index.js";
import { CancelBus } from "../runtime/cancel-bus.js";
import { ModelPauseWatch } from "../runtime/model-pause-watch.js";
import { checkRedisServer } from "../runtime/redis-server-check.js";
import { createRuntime, type ITollgateRuntime } from "../runtime/runtime.js";
import { createApprovalProcessor } from "./approval-processor.js";
import { ActiveJobs, shutdownWithHandBack } from "./hand-back-shutdown.js";
import { scheduleReconciler } from "./reconcile-runs.js";
import { endingHandlers } from "./run-effect-handlers.js";
import { createRunProcessor } from "./run-processor.js";
import { createToolIsolation } from "./tool-isolation.js";
import { createToolProcessor } from "./tool-processor.js";
import type { IWorkerContext } from "./worker-context.js";
import { WorkerReadiness } from "./worker-readiness.js";

export interface IStartWorkerOptions {
  gateway: IGateway;
  /** Which queues this process serves. @defaultValue all three */
  queues?: readonly TQueueName[];
  /** Jobs processed at once per queue. @defaultValue 8 */
  concurrency?: number;
  /** Redis, prefix, lock and stall settings. */
  runtime?: TRuntimeOptionsInput;
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
}

export interface ITollgateWorker {
  readonly runtime: ITollgateRuntime;
  readonly workers: ReadonlyMap<TQueueName, Worker>;
  /** Ready once processors run; not while draining or while Redis takes no write. */
  readonly readiness: WorkerReadiness;
  /** Stops taking jobs, waits for active ones up to shutdownTimeoutMs, then hands the rest back. */
  close(): Promise<void>;
}

/** After the shutdown timeout: time to hand jobs back and close connections before the process exits anyway. */
const exitMarginMs = 5_000;

/** Starts BullMQ workers for the run, tool and approval queues of one gateway. */
export async function startWorker(options: IStartWorkerOptions): Promise<ITollgateWorker> {
  const logger = options.logger ?? createLogger({ name: "tollgate-worker" });
  const runtime = createRuntime({
    gateway: options.gateway,
    options: options.runtime,
    role: "worker",
    onConnectionError: throttledConnectionWarning(logger),
  });
  const readiness = options.readiness ?? new WorkerReadiness();
  readiness.attach(runtime);
  // Refuses a cluster node given as a single node, and an evicting Redis when required, before any job.
  await checkRedisServer(runtime, { logger }).catch(async (error: unknown) => {
    await runtime.close();
    throw error;
  });
  const metrics: TollgateMetrics | undefined = options.registry
    ? createMetrics(options.registry, {
        pendingApprovals: () => runtime.approvals.countPending(),
        prefix: runtime.options.prefix,
      })
    : undefined;
  const modelName = options.model?.model ?? options.gateway.settings.model.name;
  const llm = new LLMClient(
    {
      ...options.model,
      model: modelName,
      ...(options.gateway.settings.model.temperature !== undefined && options.model?.temperature === undefined
        ? { temperature: options.gateway.settings.model.temperature }
        : {}),
      onRequestFinished: (event) =>
        metrics?.modelRequest({
          model: event.model,
          outcome: event.outcome === "aborted" ? "cancelled" : event.outcome,
          durationSeconds: event.durationMs / 1000,
          ...(event.status !== undefined ? { status: event.status } : {}),
          ...(event.usage ? { usage: event.usage } : {}),
        }),
    },
    // A 429 with retry-after pauses the model fleet-wide and parks the run (model-pacing.ts).
    { pauseOnRateLimit: true },
  );
  const cancelBus = await CancelBus.start(runtime);
  const modelPauses = await ModelPauseWatch.start(runtime);
  const context: IWorkerContext = { runtime, llm, cancelBus, modelPauses, logger, metrics };
  const concurrency = options.concurrency ?? 8;
  const served = options.queues ?? allQueueNames;
  const workerOptions = {
    connection: runtime.duplicateConnection(),
    prefix: runtime.options.prefix,
    concurrency,
    lockDuration: runtime.options.lockDurationMs,
    stalledInterval: runtime.options.stalledIntervalMs,
    maxStalledCount: runtime.options.maxStalledCount,
  };
  const isolation = served.includes(queueNames.tools)
    ? await createToolIsolation(options.gateway, options.gatewayModule, concurrency)
    : undefined;
  const processors = {
    [queueNames.runs]: createRunProcessor(context),
    [queueNames.tools]: createToolProcessor(context, isolation?.run),
    [queueNames.approvals]: createApprovalProcessor(context),
  };
  const workers = new Map<TQueueName, Worker>();
  const activeJobs = new ActiveJobs();
  // Before any approval can be parked here, so that the dispatcher's group sees every request.
  const notificationSettings = options.gateway.settings.notifications;
  const notifications =
    notificationSettings && served.includes(queueNames.approvals)
      ? await startNotifications({
          runtime,
          settings: notificationSettings,
          logger,
          metrics,
          workerOptions,
          wrap: (processor) =>
            activeJobs.track(
              metrics ? countingSlots(processor, queueNames.notifications, concurrency, metrics) : processor,
            ),
        })
      : undefined;
  if (notifications) workers.set(queueNames.notifications, notifications.worker);
  for (const name of served) {
    const queueProcessor = processors[name as keyof typeof processors];
    const processor = activeJobs.track(
      metrics ? countingSlots(queueProcessor, name, concurrency, metrics) : queueProcessor,
    );
    const worker = new Worker(name, processor, {
      ...workerOptions,
      connection: runtime.duplicateConnection(),
    });
    worker.on("error", (error) => logger.error({ err: error, queue: name }, "worker error"));
    worker.on("stalled", (jobId) => {
      metrics?.stalledJob(name);
      logger.warn({ queue: name, jobId }, "job stalled: its worker stopped renewing the lock; it runs again");
    });
    worker.on("failed", (job, error) => void onFailed(context, name, job, error));
    workers.set(name, worker);
  }
  if (metrics) {
    metrics.watchQueues(
      [...allQueueNames, ...(notifications ? [queueNames.notifications] : [])].map((name) => ({
        name,
        queue: runtime.queues[name],
      })),
    );
  }
  await Promise.all([...workers.values()].map((worker) => worker.waitUntilReady()));
  if (served.includes(queueNames.runs)) await scheduleReconciler(context);
  readiness.markStarted();
  logger.info({ queues: served, concurrency, prefix: runtime.options.prefix }, "worker started");

  let closing: Promise<void> | undefined;
  const close = () => {
    readiness.markDraining();
    closing ??= (notifications?.stopDispatching() ?? Promise.resolve()).then(() =>
      shutdownWithHandBack({
        context,
        workers,
        activeJobs,
        isolation,
        timeoutMs: runtime.options.shutdownTimeoutMs,
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
  return { runtime, workers, readiness, close };
}

/**
 * Counts busy slots around the processor itself: a run job that moves to waiting-children or delayed
 * ends its activation without a completed/failed event, so events would let the count drift.
 */
function countingSlots<
  TProcessor extends (job: Job, token?: string, signal?: AbortSignal) => Promise<unknown>,
>(processor: TProcessor, queue: TQueueName, concurrency: number, metrics: TollgateMetrics): TProcessor {
  let busy = 0;
  metrics.workerSlots(queue, 0, concurrency);
  const counted = async (job: Job, token?: string, signal?: AbortSignal) => {
    metrics.workerSlots(queue, ++busy, concurrency);
    try {
      return await processor(job, token, signal);
    } finally {
      metrics.workerSlots(queue, --busy, concurrency);
    }
  };
  return counted as TProcessor;
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
