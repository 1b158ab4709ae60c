/*
 * The OpenTelemetry SDK, loaded (dynamic import) only when the environment asks for traces: a process
 * with tracing off never loads it.
 */
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from "@opentelemetry/resources";
import { BatchSpanProcessor, ConsoleSpanExporter, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import type { TOtlpProtocol, TTraceExporterName } from "./trace-exporter-name.js";

export interface IStartedSdk {
  tracerProvider: NodeTracerProvider;
  /** Sends what is buffered, then stops. */
  shutdown(): Promise<void>;
}

/**
 * A NodeTracerProvider with a batch processor per exporter, registered globally: the AsyncLocalStorage
 * context manager and the W3C propagators. The exporters read their own standard variables
 * (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS, OTEL_BSP_*, OTEL_TRACES_SAMPLER, ...). Only
 * the OTLP exporter of `protocol` is loaded (gRPC's brings @grpc/grpc-js, pure JavaScript).
 */
export async function startSdk(
  exporters: readonly TTraceExporterName[],
  serviceName: string,
  protocol: TOtlpProtocol,
): Promise<IStartedSdk> {
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over the process's default name.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ "service.name": serviceName }))
    .merge(detectResources({ detectors: [envDetector] }));
  const spanExporters = await Promise.all(exporters.map((name) => exporterOf(name, protocol)));
  const tracerProvider = new NodeTracerProvider({
    resource,
    spanProcessors: spanExporters.map((exporter) => new BatchSpanProcessor(exporter)),
  });
  tracerProvider.register();
  return { tracerProvider, shutdown: () => tracerProvider.shutdown() };
}

async function exporterOf(name: TTraceExporterName, protocol: TOtlpProtocol): Promise<SpanExporter> {
  if (name === "console") return new ConsoleSpanExporter();
  switch (protocol) {
    case "http/json":
      return new (await import("@opentelemetry/exporter-trace-otlp-http")).OTLPTraceExporter();
    case "http/protobuf":
      return new (await import("@opentelemetry/exporter-trace-otlp-proto")).OTLPTraceExporter();
    case "grpc":
      return new (await import("@opentelemetry/exporter-trace-otlp-grpc")).OTLPTraceExporter();
  }
}
