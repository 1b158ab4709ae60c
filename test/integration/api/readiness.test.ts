import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApi } from "../../../src/api/index.js";
import { GatewayClient } from "../../../src/producer/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { apiTestGateway, apiTestTokens, bearer } from "./api-fixture.js";
import { captureLogger } from "./capture-logger.js";

describe("API readiness and Redis outages", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(apiTestGateway, "api-ready");
  });
  afterAll(() => harness.close());

  it("/readyz and the routes answer 503 while Redis is unreachable, hiding the cause, then recover", async () => {
    // A client of its own: this test cuts its connection.
    const client = new GatewayClient({ gateway: apiTestGateway, runtime: harness.runtimeOptions });
    const { logger, text } = captureLogger();
    const app = await buildApi({
      client,
      tokens: [apiTestTokens.admin],
      logger,
      readyTimeoutMs: 500,
      ownsClient: true,
    });
    try {
      // Not ready until the client's connection is up: it queues nothing while down.
      await waitUntil(async () => (await app.inject({ method: "GET", url: "/readyz" })).statusCode === 200);

      clientInternals(client).runtime.redis.disconnect();
      const started = Date.now();
      const notReady = await app.inject({ method: "GET", url: "/readyz" });
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(notReady.statusCode).toBe(503);
      expect(notReady.json().error.code).toBe("TG_REDIS_UNAVAILABLE");
      expect((await app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);

      const failed = await app.inject({ method: "GET", url: "/v1/runs/run_any", headers: bearer("admin") });
      expect(failed.statusCode).toBe(503);
      expect(failed.json()).toEqual({
        error: { code: "TG_REDIS_UNAVAILABLE", message: "Redis cannot be reached; retry later." },
      });
      expect(text()).toMatch(/"level":40.*request failed: Redis is unreachable/);

      // A node's client ends ("end"); a cluster's stays "close" after disconnect(): either may connect again.
      await waitUntil(() => ["end", "close"].includes(clientInternals(client).runtime.redis.status));
      await clientInternals(client).runtime.redis.connect();
      await waitUntil(async () => (await app.inject({ method: "GET", url: "/readyz" })).statusCode === 200);
    } finally {
      await app.close();
    }
    // ownsClient: closing the API closed the client.
    await waitUntil(() => clientInternals(client).runtime.redis.status === "end", {
      message: "the client closed",
    });
  });
});
