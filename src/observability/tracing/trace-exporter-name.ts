/** The trace exporters Tollgate starts from OTEL_TRACES_EXPORTER. */
export type TTraceExporterName = "otlp" | "console";
