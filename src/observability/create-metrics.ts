import type { JobType } from "bullmq";
import { collectDefaultMetrics, type Registry } from "prom-client";
import { DEFAULT_COLLECT_TIMEOUT_MS, DEFAULT_QUEUE_STATES, DEFAULT_SCRAPE_CACHE_MS } from "./constants.js";
import { createInstruments } from "./instruments.js";
import { METRIC_PREFIX } from "./metric-names.js";
import { createPendingApprovalsCollector } from "./pending-approvals-collector.js";
import { createQueueJobsCollector, type IWatchedQueue } from "./queue-jobs-collector.js";
import { recordingHelpers } from "./recording-helpers.js";
import { throttledRefresh } from "./throttled-refresh.js";
import type { ITollgateMetrics } from "./tollgate-metrics.js";

/** The scrape-time collectors, named in `tollgate_metrics_collect_errors_total{collector}`. */
export type TCollectorName = "queue_jobs" | "approvals_pending";

export interface ICreateMetricsOptions {
  /**
   * Counts the approvals waiting for a decision (in Redis). When given, `tollgate_approvals_pending`
   * is exported, read at scrape time. Give it in the processes that can reach the approvals store.
   */
  pendingApprovals?: () => Promise<number>;
  /** Queues whose job counts `tollgate_queue_jobs` reports; more can be added by `watchQueues`. */
  queues?: readonly IWatchedQueue[];
  /**
   * How long scrape-time reads (queue counts, pending approvals) are reused.
   * @defaultValue 2000
   */
  cacheMs?: number;
  /**
   * A scrape-time read slower than this counts as an error and keeps the last values.
   * @defaultValue 1000
   */
  collectTimeoutMs?: number;
  /**
   * BullMQ states counted per queue.
   * @defaultValue wait, active, delayed, prioritized, waiting-children, completed, failed, paused
   */
  queueStates?: readonly JobType[];
  /**
   * Export prom-client's default process metrics with the `tollgate_` prefix.
   * @defaultValue true
   */
  processMetrics?: boolean;
  /** Told about every failed scrape-time read, e.g. to log it (the metric counts it either way). */
  onCollectError?: (error: unknown, collector: TCollectorName) => void;
  /**
   * The deployment's Redis prefix, added as the `prefix` label of every metric of the registry (a
   * default label), so that two deployments scraped by one Prometheus are never merged.
   */
  prefix?: string;
  /** Epoch milliseconds, for the scrape cache; injected by tests. @defaultValue Date.now */
  now?: () => number;
}

function checkedOptions(options: ICreateMetricsOptions) {
  const cacheMs = options.cacheMs ?? DEFAULT_SCRAPE_CACHE_MS;
  const collectTimeoutMs = options.collectTimeoutMs ?? DEFAULT_COLLECT_TIMEOUT_MS;
  if (!Number.isFinite(cacheMs) || cacheMs < 0) {
    throw new RangeError(`createMetrics: cacheMs must be a number >= 0, got ${cacheMs}`);
  }
  if (!Number.isFinite(collectTimeoutMs) || collectTimeoutMs <= 0) {
    throw new RangeError(`createMetrics: collectTimeoutMs must be a number > 0, got ${collectTimeoutMs}`);
  }
  return { ...options, cacheMs, collectTimeoutMs, now: options.now ?? Date.now };
}

/**
 * Registers every Tollgate metric in `registry` (one per process, passed in: never prom-client's
 * global registry) and returns the helpers that workers and the API call. Call it once per registry:
 * registering a metric name twice throws.
 */
export function createMetrics(registry: Registry, options: ICreateMetricsOptions = {}): ITollgateMetrics {
  const settings = checkedOptions(options);
  if (settings.prefix !== undefined) registry.setDefaultLabels({ prefix: settings.prefix });
  // Every scrape-time read, so that the collect-errors counter can wait for them (see instruments.ts).
  const scrapeTimeReads: Array<() => Promise<void>> = [];
  const instruments = createInstruments(registry, async () => {
    await Promise.all(scrapeTimeReads.map((read) => read()));
  });

  const collectErrorHandler = (collector: TCollectorName) => (error: unknown) => {
    instruments.metricsCollectErrors.inc({ collector });
    try {
      settings.onCollectError?.(error, collector);
    } catch {
      // A failing log call must not fail the scrape; the counter already tells.
    }
  };
  const throttle = (refresh: () => Promise<void>) => {
    const throttled = throttledRefresh(refresh, { intervalMs: settings.cacheMs, now: settings.now });
    scrapeTimeReads.push(throttled);
    return throttled;
  };

  const queueJobs = createQueueJobsCollector(registry, {
    states: settings.queueStates ?? DEFAULT_QUEUE_STATES,
    timeoutMs: settings.collectTimeoutMs,
    onError: collectErrorHandler("queue_jobs"),
    now: settings.now,
    throttle,
  });
  queueJobs.watch(settings.queues ?? []);

  if (settings.pendingApprovals) {
    createPendingApprovalsCollector(registry, settings.pendingApprovals, {
      timeoutMs: settings.collectTimeoutMs,
      onError: collectErrorHandler("approvals_pending"),
      throttle,
    });
  }

  if (settings.processMetrics ?? true) {
    collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  }

  return {
    registry,
    ...recordingHelpers(instruments),
    watchQueues: (queues) => queueJobs.watch(queues),
  };
}
