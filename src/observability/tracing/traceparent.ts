import { isSpanContextValid, type SpanContext, TraceFlags } from "@opentelemetry/api";

/*
 * W3C Trace Context's `traceparent` (version 00), written and read here rather than through the global
 * propagator: a job's context must cross processes in this one format whatever propagators the embedding
 * application registered (B3, Jaeger, none).
 */

const traceparentPattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** `00-<trace id>-<span id>-<flags>`; undefined for an invalid (no-op) span context. */
export function traceparentOf(spanContext: SpanContext | undefined): string | undefined {
  if (!spanContext || !isSpanContextValid(spanContext)) return undefined;
  const flags = (spanContext.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, "0");
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

/** The remote span context a `traceparent` names; undefined when it is not one. */
export function spanContextOf(traceparent: unknown): SpanContext | undefined {
  if (typeof traceparent !== "string") return undefined;
  const match = traceparentPattern.exec(traceparent.trim());
  if (!match) return undefined;
  const spanContext: SpanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: Number.parseInt(match[3]!, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}
