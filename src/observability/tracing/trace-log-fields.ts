import { isSpanContextValid, trace } from "@opentelemetry/api";

/**
 * pino's `mixin`: the active span's `trace_id` and `span_id` on every line logged inside it, so a log
 * line leads to its trace and back. With tracing off there is never an active span: an empty object.
 * A library user with a logger of their own passes it as `mixin` to pino. A new object each time: pino
 * merges the line's own fields into it.
 */
export function traceLogFields(): Record<string, string> {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}
