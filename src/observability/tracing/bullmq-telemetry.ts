import { createRequire } from "node:module";
import {
  type Context,
  context,
  createContextKey,
  ROOT_CONTEXT,
  type SpanContext,
  type SpanKind,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import type { ContextManager, Telemetry, Tracer } from "bullmq";
import type * as bullmqOtel from "bullmq-otel";
import { spanContextOf, traceparentOf } from "./traceparent.js";

/**
 * What a job carries of its trace (BullMQ keeps it with the job, as `opts.telemetry.metadata`): the
 * W3C `traceparent` of the span that added it, and `link: true` when the job's consumer must start a
 * trace of its own linked to that span instead of joining it. A parked approval's job and a run job
 * waiting on one are marked so: their next activation may come hours later, and one trace stretched
 * over hours hides everything else in it (BullMQ issue #2942).
 */
export interface IJobTraceMetadata {
  traceparent: string;
  link?: true;
  /**
   * A parked run's job after an approved call's decision: its consumer joins the `traceparent`'s trace
   * (the decision's `resume_run` span), and is the run's resumption (see docs/TRACING.md).
   */
  resumed?: true;
}

/** Set on a consumer's parent context when its span must be a root linked to this span context. */
const linkedParentKey = createContextKey("tollgate.linked-parent");

/** The job metadata for `spanContext` (undefined when there is no sampled-or-not valid span). */
export function jobTraceMetadata(spanContext: SpanContext | undefined, link = false): string | undefined {
  const traceparent = traceparentOf(spanContext);
  if (traceparent === undefined) return undefined;
  const metadata: IJobTraceMetadata = link ? { traceparent, link: true } : { traceparent };
  return JSON.stringify(metadata);
}

/** The metadata of a parked run's job whose consumer resumes the run in the trace of `traceparent`. */
export function resumedRunTraceMetadata(traceparent: string): string {
  const metadata: IJobTraceMetadata = { traceparent, resumed: true };
  return JSON.stringify(metadata);
}

/** The metadata BullMQ stored with a job, read back; undefined for anything else. */
export function readJobTraceMetadata(metadata: unknown): IJobTraceMetadata | undefined {
  if (typeof metadata !== "string" || metadata === "") return undefined;
  try {
    const parsed = JSON.parse(metadata) as Partial<IJobTraceMetadata> | null;
    if (!parsed || typeof parsed.traceparent !== "string") return undefined;
    if (parsed.link === true) return { traceparent: parsed.traceparent, link: true };
    if (parsed.resumed === true) return { traceparent: parsed.traceparent, resumed: true };
    return { traceparent: parsed.traceparent };
  } catch {
    return undefined;
  }
}

/**
 * BullMQ's telemetry option for Tollgate's queues and workers: BullMQ makes the queue spans (`add`,
 * `process`, retries) and keeps the context with each job; bullmq-otel's span adapter turns them into
 * OpenTelemetry spans of `tracerProvider`. The context manager is Tollgate's: it writes a W3C
 * `traceparent` whatever propagators are registered, and reads the `link` mark (see IJobTraceMetadata).
 */
export function bullmqTelemetry(tracerProvider: TracerProvider): Telemetry<Context> {
  // Loaded with tracing only (CommonJS, so synchronously: createTracing stays synchronous).
  const { BullMQOTelSpan } = createRequire(import.meta.url)("bullmq-otel") as typeof bullmqOtel;
  const tracer = tracerProvider.getTracer("bullmq");
  const linkingTracer: Tracer<Context> = {
    startSpan(name, options, parentContext) {
      const kind = options?.kind as number as SpanKind;
      const linked = parentContext?.getValue(linkedParentKey) as SpanContext | undefined;
      // Only the span started right on the marked context is a linked root; spans under it are its children.
      const span =
        linked && parentContext && trace.getSpan(parentContext) === undefined
          ? tracer.startSpan(name, { kind, root: true, links: [{ context: linked }] }, parentContext)
          : tracer.startSpan(name, { kind }, parentContext);
      return new BullMQOTelSpan(span);
    },
  };
  const contextManager: ContextManager<Context> = {
    with: (activeContext, callback) => context.with(activeContext, callback),
    active: () => context.active(),
    root: () => ROOT_CONTEXT,
    getMetadata: (activeContext) => jobTraceMetadata(trace.getSpanContext(activeContext)) ?? "",
    fromMetadata(activeContext, metadata) {
      const read = readJobTraceMetadata(metadata);
      const spanContext = spanContextOf(read?.traceparent);
      if (!read || !spanContext) return activeContext;
      if (read.link) return ROOT_CONTEXT.setValue(linkedParentKey, spanContext);
      return trace.setSpanContext(activeContext, spanContext);
    },
  };
  return { tracer: linkingTracer, contextManager };
}
