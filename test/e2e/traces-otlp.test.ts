import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testRedisUrl } from "../helpers/redis-url.js";
import { script } from "../helpers/script.js";
import { deletePrefix, uniquePrefix } from "../helpers/test-prefix.js";
import { waitUntil } from "../helpers/wait-until.js";
import { type ICliProcess, logFields, startCli } from "./cli-process.js";

/*
 * The wire path of traces: `tollgate api` and `tollgate worker` as real processes, configured with the
 * standard OTEL_* variables only, export OTLP/HTTP (JSON) to a receiver this test runs (a plain HTTP
 * server decoding the export requests). One run's spans arrive from both processes in one trace, the
 * one the API's `traceparent` answer names.
 */

interface IReceivedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, unknown>;
}

interface IOtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
}

interface IOtlpExport {
  resourceSpans: Array<{
    resource: { attributes: IOtlpAttribute[] };
    scopeSpans: Array<{
      spans: Array<{
        name: string;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        attributes?: IOtlpAttribute[];
      }>;
    }>;
  }>;
}

function attributesOf(list: IOtlpAttribute[] = []): Record<string, unknown> {
  return Object.fromEntries(
    list.map(({ key, value }) => [
      key,
      value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue,
    ]),
  );
}

const gateway = "examples/support-desk/gateway.ts";
const readLogLine = (message: string) => (line: string) => logFields(line)?.msg === message;

describe("traces over OTLP/HTTP from an api and a worker process", () => {
  const prefix = uniquePrefix("e2e-otlp");
  const token = randomBytes(24).toString("base64url");
  const received: IReceivedSpan[] = [];
  const exportPaths: string[] = [];
  const processes: ICliProcess[] = [];
  let receiver: Server;
  let apiUrl = "";

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        exportPaths.push(`${request.method} ${request.url} ${request.headers["content-type"]}`);
        const body = JSON.parse(Buffer.concat(chunks).toString()) as IOtlpExport;
        for (const resource of body.resourceSpans) {
          const service = String(attributesOf(resource.resource.attributes)["service.name"]);
          for (const scope of resource.scopeSpans) {
            for (const span of scope.spans) {
              received.push({
                service,
                name: span.name,
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? "",
                attributes: attributesOf(span.attributes),
              });
            }
          }
        }
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
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
    await new Promise((resolve) => receiver.close(resolve));
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
        const spans = received.filter((span) => span.traceId === traceId);
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
    expect(exportPaths.every((path) => path === "POST /v1/traces application/json")).toBe(true);
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
      () => received.find((span) => span.traceId === callerTrace && span.name === "POST /v1/ask"),
      { timeoutMs: 30_000, message: "the ask's server span" },
    );
    expect(server.parentSpanId).toBe(callerSpan);
    await waitUntil(
      () =>
        received.some(
          (span) =>
            span.traceId === callerTrace &&
            span.service === "tollgate-worker" &&
            span.name.startsWith("chat "),
        ),
      { timeoutMs: 30_000, message: "the ask's model call from the worker" },
    );
  });
});
