import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IMetricsServer, startMetricsServer } from "../../../src/observability/index.js";
import { WorkerReadiness } from "../../../src/workers/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals, workerInternals } from "../../helpers/internals.js";
import { waitUntil } from "../../helpers/wait-until.js";

describe("worker /healthz and /readyz", () => {
  let harness: IHarness;
  let server: IMetricsServer;
  const readiness = new WorkerReadiness();
  beforeAll(async () => {
    harness = await createHarness(testGateway, "readiness");
    server = await startMetricsServer({
      registry: new Registry(),
      port: 0,
      host: "127.0.0.1",
      probes: readiness,
    });
  });
  afterAll(async () => {
    await server.close();
    await harness.close();
  });

  const probe = async (path: string) => {
    const response = await fetch(`http://127.0.0.1:${server.port}${path}`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it("is alive at once, ready once the processors run, not ready while Redis is away or while draining", async () => {
    expect(await probe("/healthz")).toEqual({ status: 200, body: { status: "ok" } });
    expect(await probe("/readyz")).toEqual({
      status: 503,
      body: { status: "not-ready", reason: "starting" },
    });

    const worker = await harness.startWorker({ readiness });
    expect(worker.readiness).toBe(readiness);
    expect(await probe("/readyz")).toEqual({ status: 200, body: { status: "ready" } });
    // The probe wrote under the prefix, where the queues are (not only a PING).
    expect(
      await clientInternals(harness.client).runtime.redis.pttl(
        clientInternals(harness.client).runtime.keys.readinessProbe(),
      ),
    ).toBeGreaterThan(0);

    workerInternals(worker).runtime.redis.disconnect();
    expect((await probe("/readyz")).body).toEqual({ status: "not-ready", reason: "redis-unavailable" });
    await workerInternals(worker).runtime.redis.connect();
    await waitUntil(async () => (await probe("/readyz")).status === 200, { message: "ready again" });

    const closing = worker.close();
    expect((await probe("/readyz")).body).toEqual({ status: "not-ready", reason: "draining" });
    expect((await probe("/healthz")).status).toBe(200);
    await closing;
  });
});
