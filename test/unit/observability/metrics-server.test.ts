import { Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import {
  createMetrics,
  type ILiveness,
  type IMetricsServer,
  startMetricsServer,
} from "../../../src/observability/index.js";

let server: IMetricsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function started() {
  const registry = new Registry();
  const metrics = createMetrics(registry, { processMetrics: false });
  server = await startMetricsServer({ registry, port: 0, host: "127.0.0.1" });
  return { metrics, base: `http://127.0.0.1:${server.port}` };
}

describe("startMetricsServer", () => {
  it("listens on the host it is given, and on loopback only when given none", async () => {
    server = await startMetricsServer({ registry: new Registry(), port: 0 });
    expect(server.host).toBe("127.0.0.1");
    await server.close();
    server = await startMetricsServer({ registry: new Registry(), port: 0, host: "::1" });
    expect(server.host).toBe("::1");
  });

  it("serves GET /metrics with the registry's text and content type", async () => {
    const { metrics, base } = await started();
    metrics.runStarted();
    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await response.text()).toContain("tollgate_runs_started_total 1\n");
  });

  it("ignores a query string", async () => {
    const { base } = await started();
    expect((await fetch(`${base}/metrics?name[]=x`)).status).toBe(200);
  });

  it.each([
    ["GET", "/"],
    ["GET", "/metrics/extra"],
    ["GET", "/healthz"],
    ["POST", "/metrics"],
  ])("answers 404 to %s %s", async (method, path) => {
    const { base } = await started();
    const response = await fetch(`${base}${path}`, { method });
    expect(response.status).toBe(404);
  });

  it("closes even while a scraper keeps its connection alive", async () => {
    const { base } = await started();
    await fetch(`${base}/metrics`, { headers: { connection: "keep-alive" } });
    await server?.close();
    server = undefined;
    await expect(fetch(`${base}/metrics`)).rejects.toThrow();
  });

  it("rejects when the port is taken", async () => {
    await started();
    const port = server?.port ?? 0;
    await expect(startMetricsServer({ registry: new Registry(), port, host: "127.0.0.1" })).rejects.toThrow(
      /EADDRINUSE/,
    );
  });
});

describe("startMetricsServer with probes", () => {
  it("answers /healthz 200 and /readyz as the probe says", async () => {
    let answer = { ready: false, reason: "draining" };
    server = await startMetricsServer({
      registry: new Registry(),
      port: 0,
      host: "127.0.0.1",
      probes: { check: async () => answer },
    });
    const base = `http://127.0.0.1:${server.port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const notReady = await fetch(`${base}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({ status: "not-ready", reason: "draining" });
    answer = { ready: true, reason: "" };
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });

  it("answers /healthz as the probe's liveness says, whatever /readyz says", async () => {
    let liveness: ILiveness = { live: false, reason: "redis-unreachable", redisUnansweredForMs: 61_234.5 };
    server = await startMetricsServer({
      registry: new Registry(),
      port: 0,
      host: "127.0.0.1",
      probes: { check: async () => ({ ready: true }), live: () => liveness },
    });
    const base = `http://127.0.0.1:${server.port}`;
    const notLive = await fetch(`${base}/healthz`);
    expect(notLive.status).toBe(503);
    expect(await notLive.json()).toEqual({
      status: "not-live",
      reason: "redis-unreachable",
      redisUnansweredForMs: 61_235,
    });
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    liveness = { live: true };
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: "ok" });
  });
});
