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
}

export interface IMetricsServer {
  /** The port actually listened on. */
  port: number;
  /** The address actually listened on. */
  host: string;
  close(): Promise<void>;
}

async function answer(registry: Registry, request: IncomingMessage, response: ServerResponse) {
  const path = (request.url ?? "/").split("?")[0];
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
 * Serves GET /metrics for processes that have no HTTP server of their own (workers). The API
 * process serves /metrics on its own server with `metricsText` instead.
 */
export async function startMetricsServer({
  registry,
  port,
  host = "127.0.0.1",
}: IMetricsServerOptions): Promise<IMetricsServer> {
  const server = createServer((request, response) => {
    void answer(registry, request, response);
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
