import type { JobType } from "bullmq";

/**
 * Behaviour-changing defaults of the observability module, in one place.
 * Histogram buckets are chosen per metric from the latencies we expect, so that the p50 and p99
 * of a healthy system fall between two buckets rather than in the first or the last one.
 */

/** Scrape-time gauges read Redis at most this often, so a scrape storm does not hammer it. */
export const DEFAULT_SCRAPE_CACHE_MS = 2_000;

/** A scrape-time read slower than this counts as a collect error; the gauge keeps its last values. */
export const DEFAULT_COLLECT_TIMEOUT_MS = 1_000;

/** The port a worker process serves /metrics on when `--metrics-port` is not given. */
export const DEFAULT_WORKER_METRICS_PORT = 9464;

/** The label a tool call gets when the model named a tool that does not exist. */
export const UNKNOWN_TOOL_LABEL = "(unknown)";

/**
 * BullMQ states counted for `tollgate_queue_jobs`. `wait` and `waiting` are one list in BullMQ, so
 * only `wait` is asked; `waiting-children` is where a run parks while its tool calls run. BullMQ 6
 * keeps paused jobs in `wait`, so there is no `paused` state to ask for.
 */
export const DEFAULT_QUEUE_STATES = [
  "wait",
  "active",
  "delayed",
  "prioritized",
  "waiting-children",
  "completed",
  "failed",
] as const satisfies readonly JobType[];

export const HISTOGRAM_BUCKETS = {
  /** Runs include approval waits, so the tail reaches hours. */
  runDurationSeconds: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200],
  runSteps: [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50],
  /** What a 429's retry-after asks: a second to minutes. */
  modelPauseSeconds: [0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600],
  modelRequestSeconds: [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120],
  /** A job waits milliseconds on an idle system and seconds to minutes under backlog. */
  runQueueWaitSeconds: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900],
  toolScheduleToStartSeconds: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  toolExecutionSeconds: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
  /** Humans answer in seconds to a day; an expired approval waits its whole TTL. */
  webhookDeliverySeconds: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  webhookLagSeconds: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 60, 300, 900, 3600],
  approvalWaitSeconds: [1, 5, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 28800, 86400],
} as const;
