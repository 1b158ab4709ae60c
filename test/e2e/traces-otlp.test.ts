import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IOtlpReceiver, startOtlpReceiver } from "../helpers/otlp-receiver.js";
import { testRedisUrl } from "../helpers/redis-url.js";
import { script } from "../helpers/script.js";
import { deletePrefix, uniquePrefix } from "../helpers/test-prefix.js";
import { waitUntil } from "../helpers/wait-until.js";
import { type ICliProcess, logFields, startCli } from "./cli-process.js";

/*
 * The wire path of traces: `tollgate api` and `tollgate worker` as real processes, configured with the
 * standard OTEL_* variables only, export OTLP/HTTP to a receiver this test runs. The API sends the spec's
 * default, protobuf (no protocol variable; decoded with OpenTelemetry's generated OTLP definitions), the
 * worker JSON (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json). One run's spans arrive from both processes
 * in one trace, the one the API's `traceparent` answer names.
 */

const gateway = "examples/support-desk/gateway.ts";
const readLogLine = (message: string) => (line: string) => logFields(line)?.msg === message;

describe("traces over OTLP/HTTP from an api and a worker process", () => {
  const prefix = uniquePrefix("e2e-otlp");
  const token = randomBytes(24).toString("base64url");
  const processes: ICliProcess[] = [];
  let receiver: IOtlpReceiver;
  let apiUrl = "";

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const { endpoint } = receiver;
    const model = startCli(["model-server", "--port", "0"], {});
    processes.push(model);
    const modelLine = await model.waitForLine((line) => line.includes("listening on http"));
    const modelUrl = modelLine.slice(modelLine.indexOf("http"));
    const shared = {
      REDIS_URL: testRedisUrl,
      TOLLGATE_PREFIX: prefix,
      LOG_LEVEL: "info",
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      // Batches leave every 100 ms instead of every 5 s: the test waits less.
      OTEL_BSP_SCHEDULE_DELAY: "100",
    };
    const worker = startCli(["worker", "--gateway", gateway, "--metrics-port", "0"], {
      ...shared,
      OPENAI_BASE_URL: modelUrl,
      // Two activations for a run with a tool step: the run job does not wait for its tool in its slot.
      TOLLGATE_FAST_TOOL_WAIT_MS: "0",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
    });
    const api = startCli(["api", "--gateway", gateway, "--port", "0"], {
      ...shared,
      TOLLGATE_API_TOKENS: JSON.stringify([{ token, subject: "otlp-test", roles: ["admin"] }]),
    });
    processes.push(worker, api);
    await worker.waitForLine(readLogLine("worker started"), 60_000);
    const apiLine = await api.waitForLine(readLogLine("tollgate api listening"), 60_000);
    apiUrl = String(logFields(apiLine)?.url);
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled(processes.map((process) => process.stop("SIGKILL")));
    await receiver.close();
    await deletePrefix(prefix);
  });

  const post = (path: string, body: unknown) =>
    fetch(`${apiUrl}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("POST /v1/runs answers a traceparent; the run's spans arrive from both processes in that trace", async () => {
    const answer = await post("/v1/runs", {
      input: script(
        { calls: [{ name: "lookup_order", input: { orderId: "A-1002" } }] },
        { text: "It is on its way." },
      ),
      userContext: { userId: "u-otlp" },
    });
    expect(answer.status).toBe(202);
    const { runId } = (await answer.json()) as { runId: string };
    const traceparent = answer.headers.get("traceparent") ?? "";
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const [, traceId, serverSpanId] = traceparent.split("-");
    const inTrace = await waitUntil(
      () => {
        const spans = receiver.received.filter((span) => span.traceId === traceId);
        const names = new Set(spans.map((span) => `${span.service} ${span.name}`));
        const complete = [
          "tollgate-api POST /v1/runs",
          "tollgate-api invoke_agent support-desk",
          "tollgate-worker process runs",
          "tollgate-worker execute_tool lookup_order",
        ].every((name) => names.has(name));
        const activations = spans.filter((span) => span.name === "process runs").length;
        const chats = spans.filter((span) => span.name.startsWith("chat ")).length;
        return complete && activations >= 2 && chats === 2 ? spans : undefined;
      },
      { timeoutMs: 30_000, message: `the spans of run ${runId} from both processes` },
    );
    const server = inTrace.find((span) => span.name === "POST /v1/runs")!;
    expect(server.spanId).toBe(serverSpanId);
    const invoke = inTrace.find((span) => span.name === "invoke_agent support-desk")!;
    expect(invoke.parentSpanId).toBe(server.spanId);
    expect(invoke.attributes["tollgate.run.id"]).toBe(runId);
    // The worker's activations are children of the API's span: the context crossed with the run job.
    const activations = inTrace.filter((span) => span.name === "process runs");
    expect(activations.length).toBeGreaterThanOrEqual(2);
    for (const activation of activations) {
      expect(activation.service).toBe("tollgate-worker");
      expect(activation.parentSpanId).toBe(invoke.spanId);
    }
    const chat = inTrace.find((span) => span.name.startsWith("chat "))!;
    expect(chat.attributes["gen_ai.operation.name"]).toBe("chat");
    expect(Number(chat.attributes["gen_ai.usage.input_tokens"])).toBeGreaterThan(0);
    const tool = inTrace.find((span) => span.name === "execute_tool lookup_order")!;
    expect(tool.attributes["tollgate.tool.outcome"]).toBe("ok");
    // Each process in its protocol: the API in protobuf (the default), the worker in JSON.
    for (const span of inTrace)
      expect(span.contentType).toBe(
        span.service === "tollgate-api" ? "application/x-protobuf" : "application/json",
      );
    expect(new Set(receiver.exportRequests)).toEqual(
      new Set(["POST /v1/traces application/x-protobuf", "POST /v1/traces application/json"]),
    );
  });

  it("POST /v1/ask answers a traceparent too, and a caller's traceparent is the parent of the request's span", async () => {
    const callerTrace = randomBytes(16).toString("hex");
    const callerSpan = randomBytes(8).toString("hex");
    const answer = await fetch(`${apiUrl}/v1/ask`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        traceparent: `00-${callerTrace}-${callerSpan}-01`,
      },
      body: JSON.stringify({ input: script({ text: "Hello." }), userContext: { userId: "u-otlp" } }),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("traceparent")).toMatch(new RegExp(`^00-${callerTrace}-[0-9a-f]{16}-01$`));
    const server = await waitUntil(
      () => receiver.received.find((span) => span.traceId === callerTrace && span.name === "POST /v1/ask"),
      { timeoutMs: 30_000, message: "the ask's server span" },
    );
    expect(server.parentSpanId).toBe(callerSpan);
    await waitUntil(
      () =>
        receiver.received.some(
          (span) =>
            span.traceId === callerTrace &&
            span.service === "tollgate-worker" &&
            span.name.startsWith("chat "),
        ),
      { timeoutMs: 30_000, message: "the ask's model call from the worker" },
    );
  });
});
