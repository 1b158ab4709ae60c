import { Server, ServerCredentials, type ServerUnaryCall, type sendUnaryData } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IEnvTracing, startTracingFromEnv } from "../../../src/observability/tracing/index.js";
import { type IReceivedSpan, spansOfExport } from "../../helpers/otlp-receiver.js";

/*
 * OTEL_EXPORTER_OTLP_PROTOCOL=grpc: the spans leave over OTLP/gRPC (OpenTelemetry's exporter, on the
 * pure-JavaScript @grpc/grpc-js) to a gRPC server this test runs, which takes the collector's Export
 * method and decodes the requests with OpenTelemetry's generated OTLP definitions.
 */

const exportMethod = {
  path: "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
  requestStream: false,
  responseStream: false,
  requestSerialize: (bytes: Buffer) => bytes,
  requestDeserialize: (bytes: Buffer) => bytes,
  responseSerialize: (bytes: Buffer) => bytes,
  responseDeserialize: (bytes: Buffer) => bytes,
};

describe("traces over OTLP/gRPC", () => {
  const received: IReceivedSpan[] = [];
  const server = new Server();
  let tracing: IEnvTracing | undefined;
  beforeAll(async () => {
    server.addService(
      { Export: exportMethod },
      {
        Export(call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) {
          received.push(...spansOfExport("application/x-protobuf", call.request));
          // An empty ExportTraceServiceResponse.
          callback(null, Buffer.alloc(0));
        },
      },
    );
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    // The exporter reads its endpoint from the process's environment, as in a real deployment.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${port}`;
    process.env.OTEL_EXPORTER_OTLP_PROTOCOL = "grpc";
  });
  afterAll(async () => {
    await tracing?.shutdown();
    server.forceShutdown();
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete process.env.OTEL_EXPORTER_OTLP_PROTOCOL;
  });

  it("a span reaches the gRPC receiver with the process's service name", async () => {
    tracing = await startTracingFromEnv("tollgate-grpc-test");
    expect(tracing).toBeDefined();
    const span = tracing!.options.tracerProvider.getTracer("test").startSpan("over grpc");
    span.setAttribute("tollgate.run.id", "run-grpc");
    span.end();
    // Shutting down flushes the batch: the export has been answered when it resolves.
    await tracing!.shutdown();
    tracing = undefined;
    const [exported] = received.filter((one) => one.name === "over grpc");
    expect(exported).toMatchObject({
      service: "tollgate-grpc-test",
      traceId: span.spanContext().traceId,
      spanId: span.spanContext().spanId,
      attributes: { "tollgate.run.id": "run-grpc" },
    });
  });
});
