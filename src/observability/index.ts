export { auditLog, type IAuditEntry } from "./audit-log.js";
export { DEFAULT_WORKER_METRICS_PORT, UNKNOWN_TOOL_LABEL } from "./constants.js";
export { createLogger, type ICreateLoggerOptions, type Logger } from "./create-logger.js";
export { createMetrics, type ICreateMetricsOptions, type TCollectorName } from "./create-metrics.js";
export { type IJobLogFields, jobLogger, logContent } from "./job-logger.js";
export {
  OTHER_TENANT_LABEL,
  type TModelRequestOutcome,
  type TTokenKind,
  tenantLabel,
} from "./metric-labels.js";
export { allMetricNames, METRIC_PREFIX, METRICS, PROCESS_METRIC_NAMES } from "./metric-names.js";
export {
  type ILiveness,
  type IMetricsServer,
  type IMetricsServerOptions,
  type IReadiness,
  type IReadinessProbe,
  startMetricsServer,
} from "./metrics-server.js";
export { type IMetricsText, metricsText } from "./metrics-text.js";
export type { IWatchedQueue } from "./queue-jobs-collector.js";
export { throttledConnectionWarning } from "./throttled-warning.js";
export type {
  IApprovalDecisionObservation,
  IModelRequestObservation,
  ITollgateMetrics,
  IToolCallObservation,
  IToolExecutionObservation,
  TApprovalLinkRedemptionOutcome,
  TollgateMetrics,
} from "./tollgate-metrics.js";
export {
  createTracing,
  type IEnvTracing,
  type ITracing,
  type ITracingOptions,
  startTracingFromEnv,
  traceLogFields,
} from "./tracing/index.js";
export { withTimeout } from "./with-timeout.js";
