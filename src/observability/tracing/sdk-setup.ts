/*
 * The OpenTelemetry SDK, loaded (dynamic import) only when the environment asks for traces: a process
 * with tracing off never loads it.
 */
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from "@opentelemetry/resources";
import { BatchSpanProcessor, ConsoleSpanExporter, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import type { TTraceExporterName } from "./trace-exporter-name.js";

export interface IStartedSdk {
  tracerProvider: NodeTracerProvider;
  /** Sends what is buffered, then stops. */
  shutdown(): Promise<void>;
}

/**
 * A NodeTracerProvider with a batch processor per exporter, registered globally: the AsyncLocalStorage
 * context manager and the W3C propagators. The exporters read their own standard variables
 * (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS, OTEL_BSP_*, OTEL_TRACES_SAMPLER, ...).
 */
export function startSdk(exporters: readonly TTraceExporterName[], serviceName: string): IStartedSdk {
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over the process's default name.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ "service.name": serviceName }))
    .merge(detectResources({ detectors: [envDetector] }));
  const tracerProvider = new NodeTracerProvider({
    resource,
    spanProcessors: exporters.map((name) => new BatchSpanProcessor(exporterOf(name))),
  });
  tracerProvider.register();
  return { tracerProvider, shutdown: () => tracerProvider.shutdown() };
}

function exporterOf(name: TTraceExporterName): SpanExporter {
  return name === "console" ? new ConsoleSpanExporter() : new OTLPTraceExporter();
}
