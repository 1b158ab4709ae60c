import { TollgateError } from "../../errors/index.js";
import {
  defaultOtlpProtocol,
  otlpProtocols,
  type TOtlpProtocol,
  type TTraceExporterName,
} from "./trace-exporter-name.js";
import type { ITracingOptions } from "./tracing.js";

export type { TOtlpProtocol, TTraceExporterName };

/** The standard variables that decide whether a process traces (read from the environment as given). */
export interface ITracingEnv {
  OTEL_SDK_DISABLED?: string | undefined;
  OTEL_TRACES_EXPORTER?: string | undefined;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_PROTOCOL?: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?: string | undefined;
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?: string | undefined;
}

/**
 * Which exporters the environment asks for; none means tracing is off. Off unless configured: an
 * OTLP endpoint, or OTEL_TRACES_EXPORTER naming `otlp` or `console`. `none` and OTEL_SDK_DISABLED=true
 * turn it off. An OTLP protocol Tollgate cannot send is refused here too, at start (see otlpProtocolOf).
 */
export function traceExportersOf(env: ITracingEnv): TTraceExporterName[] {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return [];
  const named = env.OTEL_TRACES_EXPORTER?.split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const names = named && named.length > 0 ? named : endpoint ? ["otlp"] : [];
  if (names.includes("none")) return [];
  const exporters: TTraceExporterName[] = [];
  for (const name of names) {
    if (name !== "otlp" && name !== "console") {
      throw new TollgateError(
        "TG_INVALID_CONFIG",
        `OTEL_TRACES_EXPORTER names "${name}": Tollgate exports traces with otlp, console or none.`,
        { issues: [{ path: "OTEL_TRACES_EXPORTER", message: `unknown exporter "${name}"` }] },
      );
    }
    if (!exporters.includes(name)) exporters.push(name);
  }
  if (exporters.includes("otlp")) otlpProtocolOf(env);
  return exporters;
}

/**
 * The OTLP transport, as the OpenTelemetry spec reads it: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else
 * OTEL_EXPORTER_OTLP_PROTOCOL, else `http/protobuf` (the spec's default; a collector, Jaeger and Tempo
 * take both HTTP forms on 4318, gRPC on 4317). Anything else is refused with TG_INVALID_CONFIG naming the
 * variable and the values Tollgate sends.
 */
export function otlpProtocolOf(env: ITracingEnv): TOtlpProtocol {
  const key =
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL !== undefined
      ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
      : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const value = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  if (value === undefined || value === "") return defaultOtlpProtocol;
  const protocol = otlpProtocols.find((known) => known === value);
  if (protocol) return protocol;
  throw new TollgateError(
    "TG_INVALID_CONFIG",
    `${key} is "${value}": Tollgate sends OTLP as ${otlpProtocols.join(", ")} (the default is ${defaultOtlpProtocol}).`,
    { issues: [{ path: key, message: `one of ${otlpProtocols.join(", ")}` }] },
  );
}

/** A process's tracing started from the environment. */
export interface IEnvTracing {
  /** Pass as `tracing` to GatewayClient and startWorker. */
  options: ITracingOptions;
  /** Flushes what is buffered and stops; call it before the process exits. */
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry SDK when the standard variables ask for traces (see traceExportersOf), and
 * registers it globally; resolves undefined, having loaded nothing of the SDK, when they do not.
 * `serviceName` is the default for OTEL_SERVICE_NAME.
 */
export async function startTracingFromEnv(
  serviceName: string,
  env: ITracingEnv = process.env,
): Promise<IEnvTracing | undefined> {
  const exporters = traceExportersOf(env);
  if (exporters.length === 0) return undefined;
  const protocol = otlpProtocolOf(env);
  const { startSdk } = await import("./sdk-setup.js");
  const sdk = await startSdk(exporters, serviceName, protocol);
  const capture = env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === "true";
  return {
    options: { tracerProvider: sdk.tracerProvider, captureMessageContent: capture },
    shutdown: sdk.shutdown,
  };
}
