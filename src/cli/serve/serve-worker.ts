import { resolve } from "node:path";
import { Registry } from "prom-client";
import type { TEnv } from "../../config/env.js";
import { runtimeOptionsFromEnv } from "../../config/runtime-options-from-env.js";
import { DEFAULT_MODEL } from "../../gateway/index.js";
import { createLogger, startMetricsServer, startTracingFromEnv } from "../../observability/index.js";
import type { TQueueName } from "../../queue/queue-names.js";
import { describeNamedModels, startWorker, WorkerReadiness } from "../../workers/index.js";
import type { ICliIo } from "../cli-io.js";
import { loadGateway } from "../load-gateway.js";
import { redactRedisUrl } from "../redis/redis-ping.js";
import { waitForStopSignal } from "../stop-signal.js";
import { modelFromEnv } from "./model-from-env.js";

export interface IServeWorkerOptions {
  gatewayPath: string;
  queues: readonly TQueueName[];
  /** Partitions to serve (`--partitions`); unset: TOLLGATE_SERVED_PARTITIONS, else all. */
  partitions?: readonly string[];
  concurrency: number;
  metricsPort: number;
  /** The address /metrics listens on (TOLLGATE_HOST). */
  metricsHost: string;
  /** Log lines for people (true) or JSON lines (false), as --output asked; unset: createLogger's default. */
  prettyLogs?: boolean;
}

/**
 * `tollgate worker`: processes jobs and serves /metrics until SIGTERM/SIGINT, then stops as startWorker
 * does (no new jobs, active ones finish or are handed back) and resolves with 0.
 */
export async function serveWorker(io: ICliIo, env: TEnv, options: IServeWorkerOptions): Promise<number> {
  const gateway = await loadGateway(options.gatewayPath, io.cwd);
  const model = modelFromEnv(env, gateway.settings.models.default);
  const logger = createLogger({
    level: env.LOG_LEVEL,
    name: "tollgate-worker",
    ...(options.prettyLogs !== undefined ? { pretty: options.prettyLogs } : {}),
  });
  const registry = new Registry();
  const runtime = runtimeOptionsFromEnv(env);
  // Traces only when the standard OTEL_* variables ask for them; nothing of the SDK is loaded otherwise.
  const tracing = await startTracingFromEnv("tollgate-worker");
  // Said before connecting: a worker waits for Redis as long as it takes, and where it waits matters. The
  // models are named as the worker will call them (the gateway's, the environment's on `default`).
  const models = describeNamedModels(gateway.settings, model);
  const defaultModel = models[DEFAULT_MODEL]!;
  logger.info(
    {
      redis: redactRedisUrl(runtime.redisUrl ?? "redis://127.0.0.1:6379"),
      prefix: runtime.prefix ?? "tollgate",
      partitions: runtime.partitions ?? 1,
      model: defaultModel.model,
      modelEndpoint: defaultModel.endpoint,
      fallbacks: defaultModel.fallbacks,
      models,
    },
    "starting worker",
  );
  // Probes first: /healthz answers while the worker waits for Redis (503 once that has lasted the liveness
  // timeout), and /readyz says "starting".
  const readiness = new WorkerReadiness();
  const metrics = await startMetricsServer({
    registry,
    port: options.metricsPort,
    host: options.metricsHost,
    probes: readiness,
  });
  logger.info({ metricsHost: metrics.host, metricsPort: metrics.port }, "worker metrics at /metrics");
  const worker = await startWorker({
    gateway,
    queues: options.queues,
    ...(options.partitions ? { partitions: options.partitions } : {}),
    // Isolated tools load the gateway in their threads or processes from the same file.
    gatewayModule: resolve(io.cwd, options.gatewayPath),
    concurrency: options.concurrency,
    runtime,
    // The same environment the runtime was read from: a Slack target's bot token is in it too.
    env: io.env,
    model,
    logger,
    registry,
    readiness,
    ...(tracing ? { tracing: tracing.options } : {}),
    // Stopping is ours: the metrics server must close too, and the exit code is the CLI's to set.
    handleSignals: false,
  }).catch(async (error: unknown) => {
    await metrics.close();
    await tracing?.shutdown();
    throw error;
  });
  if (tracing) logger.info("traces exported (OpenTelemetry)");
  const signal = await waitForStopSignal();
  logger.info({ signal }, "stopping: no new jobs; waiting for active ones");
  await worker.close();
  await metrics.close();
  // The spans still buffered go out before the process ends.
  await tracing?.shutdown();
  return 0;
}
