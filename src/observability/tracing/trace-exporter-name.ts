/** The trace exporters Tollgate starts from OTEL_TRACES_EXPORTER. */
export type TTraceExporterName = "otlp" | "console";

/** The OTLP transports Tollgate sends over (OTEL_EXPORTER_OTLP_PROTOCOL's values in the OTel spec). */
export const otlpProtocols = ["http/protobuf", "http/json", "grpc"] as const;

export type TOtlpProtocol = (typeof otlpProtocols)[number];

/** The spec's default when neither protocol variable is set. */
export const defaultOtlpProtocol: TOtlpProtocol = "http/protobuf";
