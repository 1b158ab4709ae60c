import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";
import { metricsText } from "./metrics-text.js";

export interface IMetricsServerOptions {
  registry: Registry;
  /** 0 picks a free port (tests); workers use `--metrics-port`, 9464 by default. */
  port: number;
  /**
   * The address to listen on; `tollgate worker` passes TOLLGATE_HOST. Metrics tell a lot about a
   * deployment, so nothing outside the machine reaches them unless the operator says so.
   * @defaultValue "127.0.0.1"
   */
  host?: string;
  /**
   * With it, the server also answers GET /healthz (200 while the process runs and, when the probe has
   * `live`, reaches Redis) and GET /readyz.
   */
  probes?: IReadinessProbe;
}

/** What /readyz asks (and /healthz, when given `live`); a worker's answer comes from its WorkerReadiness. */
export interface IReadinessProbe {
  check(): Promise<IReadiness>;
  /** What /healthz answers; without it, /healthz is 200 while the process runs. */
  live?(): ILiveness;
}

export interface ILiveness {
  live: boolean;
  /** Why not live: redis-unreachable (no answer from Redis for the liveness timeout). */
  reason?: string;
  /** How long Redis has left the process's questions unanswered. */
  redisUnansweredForMs?: number;
}

export interface IReadiness {
  ready: boolean;
  /** Why not ready: starting, draining, redis-unavailable. */
  reason?: string;
  /**
   * MCP servers this worker cannot reach right now. The worker stays ready (its other tools work); the
   * servers' tools are absent from new runs until they answer.
   */
  mcpServersDown?: string[];
}

export interface IMetricsServer {
  /** The port actually listened on. */
  port: number;
  /** The address actually listened on. */
  host: string;
  close(): Promise<void>;
}

function json(response: ServerResponse, status: number, body: object): void {
  response
    .writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" })
    .end(`${JSON.stringify(body)}\n`);
}

async function answerProbe(probes: IReadinessProbe, path: string, response: ServerResponse) {
  if (path === "/healthz") return answerLiveness(probes, response);
  const readiness = await probes.check().catch(() => ({ ready: false, reason: "probe-failed" }));
  const down =
    "mcpServersDown" in readiness && readiness.mcpServersDown?.length
      ? { mcpServersDown: readiness.mcpServersDown }
      : {};
  if (readiness.ready) return json(response, 200, { status: "ready", ...down });
  return json(response, 503, { status: "not-ready", reason: readiness.reason ?? "unknown" });
}

function answerLiveness(probes: IReadinessProbe, response: ServerResponse) {
  const liveness = probes.live?.() ?? { live: true };
  if (liveness.live) return json(response, 200, { status: "ok" });
  return json(response, 503, {
    status: "not-live",
    reason: liveness.reason ?? "unknown",
    ...(liveness.redisUnansweredForMs === undefined
      ? {}
      : { redisUnansweredForMs: Math.round(liveness.redisUnansweredForMs) }),
  });
}

async function answer(
  registry: Registry,
  probes: IReadinessProbe | undefined,
  request: IncomingMessage,
  response: ServerResponse,
) {
  const path = (request.url ?? "/").split("?")[0] ?? "/";
  if (probes && request.method === "GET" && (path === "/healthz" || path === "/readyz")) {
    await answerProbe(probes, path, response);
    return;
  }
  if (path !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) {
    response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
    return;
  }
  try {
    const { contentType, body } = await metricsText(registry);
    response.writeHead(200, { "content-type": contentType, "cache-control": "no-store" });
    response.end(request.method === "HEAD" ? undefined : body);
  } catch {
    // Collectors handle their own errors; this is a bug in a metric, and the scrape shows it as failed.
    response
      .writeHead(500, { "content-type": "text/plain; charset=utf-8" })
      .end("metrics collection failed\n");
  }
}

/**
 * Serves GET /metrics (and, given probes, /healthz and /readyz) for processes that have no HTTP server
 * of their own (workers). The API process serves these on its own server instead.
 */
export async function startMetricsServer({
  registry,
  port,
  host = "127.0.0.1",
  probes,
}: IMetricsServerOptions): Promise<IMetricsServer> {
  const server = createServer((request, response) => {
    void answer(registry, probes, request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    port: address.port,
    host: address.address,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Prometheus keeps its connection alive between scrapes; close() alone would wait for it.
        server.closeAllConnections();
      }),
  };
}
