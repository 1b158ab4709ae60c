import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { TollgateError } from "../../../src/errors/index.js";
import { createTracing, otlpProtocolOf, traceExportersOf } from "../../../src/observability/tracing/index.js";

/** Which exporters the standard variables ask for (none = tracing off), and what they refuse. */
describe("traceExportersOf", () => {
  it.each([
    [{}, []],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "" }, []],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, ["otlp"]],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" }, ["otlp"]],
    [{ OTEL_TRACES_EXPORTER: "console" }, ["console"]],
    [{ OTEL_TRACES_EXPORTER: "otlp, console, otlp" }, ["otlp", "console"]],
    [{ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, []],
    [{ OTEL_SDK_DISABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, []],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
      ["otlp"],
    ],
  ])("%j → %j", (env, exporters) => {
    expect(traceExportersOf(env)).toEqual(exporters);
  });

  it.each([
    [{ OTEL_TRACES_EXPORTER: "zipkin" }, "OTEL_TRACES_EXPORTER", "otlp, console or none"],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_PROTOCOL: "thrift" },
      "OTEL_EXPORTER_OTLP_PROTOCOL",
      "http/protobuf, http/json, grpc",
    ],
    [
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
        OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/xml",
      },
      "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
      "http/protobuf, http/json, grpc",
    ],
  ])("%j is refused with TG_INVALID_CONFIG naming %s and the supported values", (env, key, supported) => {
    try {
      traceExportersOf(env);
      expect.unreachable("refused");
    } catch (error) {
      expect(TollgateError.isInstance(error) && error.code).toBe("TG_INVALID_CONFIG");
      expect((error as TollgateError).message).toContain(key);
      expect((error as TollgateError).message).toContain(supported);
    }
  });

  it("a protocol is not read while OTLP is not asked for", () => {
    expect(
      traceExportersOf({ OTEL_TRACES_EXPORTER: "console", OTEL_EXPORTER_OTLP_PROTOCOL: "thrift" }),
    ).toEqual(["console"]);
  });
});

/** The OTLP transport as the spec reads it: the traces variable, then the general one, then http/protobuf. */
describe("otlpProtocolOf", () => {
  it.each([
    [{}, "http/protobuf"],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: "" }, "http/protobuf"],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }, "http/json"],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: " grpc " }, "grpc"],
    [
      { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf" },
      "http/protobuf",
    ],
    [
      { OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json" },
      "http/json",
    ],
  ])("%j → %s", (env, protocol) => {
    expect(otlpProtocolOf(env)).toBe(protocol);
  });
});

describe("createTracing", () => {
  it("refuses a provider while no context manager is registered, and a value that is no provider", () => {
    // This test's process registers none: spans could not find their parents.
    for (const options of [{ tracerProvider: new BasicTracerProvider() }, { tracerProvider: {} }]) {
      try {
        createTracing(options as Parameters<typeof createTracing>[0]);
        expect.unreachable("refused");
      } catch (error) {
        expect(TollgateError.isInstance(error) && error.code).toBe("TG_INVALID_CONFIG");
      }
    }
  });
});
