export {
  type IJobTraceMetadata,
  jobTraceMetadata,
  readJobTraceMetadata,
  resumedRunTraceMetadata,
} from "./bullmq-telemetry.js";
export {
  APPROVAL_DECISION_SPAN,
  APPROVAL_WAIT_SPAN,
  GEN_AI,
  GEN_AI_OPERATIONS,
  RUN_RESUME_SPAN,
  TOLLGATE_ATTRIBUTES,
} from "./gen-ai-attributes.js";
export { traceLogFields } from "./trace-log-fields.js";
export { spanContextOf, traceparentOf } from "./traceparent.js";
export { createTracing, type ITracing, type ITracingOptions, markFailed } from "./tracing.js";
export {
  type IEnvTracing,
  type ITracingEnv,
  otlpProtocolOf,
  startTracingFromEnv,
  type TOtlpProtocol,
  type TTraceExporterName,
  traceExportersOf,
} from "./tracing-env.js";
