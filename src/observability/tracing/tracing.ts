import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  type Span,
  type SpanOptions,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";
import type { Telemetry } from "bullmq";
import { TollgateError } from "../../errors/index.js";
import { bullmqTelemetry } from "./bullmq-telemetry.js";

/** The library's tracing option (GatewayClient, startWorker, startApi through the client). */
export interface ITracingOptions {
  /**
   * Where Tollgate's spans go. The process needs an OpenTelemetry context manager (`register()` on a
   * NodeTracerProvider, or the NodeSDK, sets one): spans find their parents through it.
   */
  tracerProvider: TracerProvider;
  /**
   * Prompts, replies, tool inputs and outputs on the spans (`gen_ai.input.messages`, ...): they may hold
   * personal data. @defaultValue OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is "true"
   */
  captureMessageContent?: boolean;
}

/**
 * Tracing as the shell uses it, made only when tracing is on: with it off, callers hold `undefined` and
 * take their untraced path (no span objects, no context switches, BullMQ without telemetry).
 */
export interface ITracing {
  readonly tracer: Tracer;
  readonly captureMessageContent: boolean;
  /** BullMQ's `telemetry` option for every Queue and Worker. */
  readonly bullmq: Telemetry<Context>;
  /**
   * Runs `work` in a new active span, ended when it settles; a throw is recorded on the span (status
   * error, `error.type`) and rethrown.
   */
  inSpan<TResult>(
    name: string,
    options: SpanOptions,
    work: (span: Span) => Promise<TResult>,
    parent?: Context,
  ): Promise<TResult>;
}

/** Builds the shell's tracing from the library option; TG_INVALID_CONFIG without a context manager. */
export function createTracing(options: ITracingOptions): ITracing {
  if (!options || typeof options.tracerProvider?.getTracer !== "function") {
    throw new TollgateError(
      "TG_INVALID_CONFIG",
      "tracing.tracerProvider must be an OpenTelemetry TracerProvider (it has getTracer).",
    );
  }
  if (!hasContextManager()) {
    throw new TollgateError(
      "TG_INVALID_CONFIG",
      "tracing: no OpenTelemetry context manager is registered, so spans could not find their parents. " +
        "Call register() on the NodeTracerProvider (or start the NodeSDK) before passing it.",
    );
  }
  const tracer = options.tracerProvider.getTracer("tollgate");
  return {
    tracer,
    captureMessageContent:
      options.captureMessageContent ??
      process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.toLowerCase() === "true",
    bullmq: bullmqTelemetry(options.tracerProvider),
    inSpan(name, spanOptions, work, parent) {
      const parentContext = parent ?? context.active();
      return tracer.startActiveSpan(name, spanOptions, parentContext, async (span) => {
        try {
          return await work(span);
        } catch (error) {
          markFailed(span, error);
          throw error;
        } finally {
          span.end();
        }
      });
    },
  };
}

/** A failed operation on its span: the exception, status error and `error.type` (a code when it has one). */
export function markFailed(span: Span, error: unknown, attributes: Attributes = {}): void {
  const code = (error as { code?: unknown } | null)?.code;
  const name = (error as { name?: unknown } | null)?.name;
  const errorType = typeof code === "string" ? code : typeof name === "string" ? name : "_OTHER";
  if (error instanceof Error) span.recordException(error);
  span.setAttributes({ "error.type": errorType, ...attributes });
  span.setStatus({
    code: SpanStatusCode.ERROR,
    ...(error instanceof Error ? { message: error.message } : {}),
  });
}

const probeKey = createContextKey("tollgate.context-manager-probe");

/** Whether a context manager keeps what `context.with` sets (the API's default one keeps nothing). */
function hasContextManager(): boolean {
  return (
    context.with(context.active().setValue(probeKey, true), () => context.active().getValue(probeKey)) ===
    true
  );
}
