import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApi } from "../../../src/api/index.js";
import { GatewayClient } from "../../../src/producer/index.js";
import { type IPrivateRedisServer, startPrivateRedisServer } from "../../helpers/private-redis-server.js";
import { uniquePrefix } from "../../helpers/test-prefix.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { apiTestGateway, apiTestTokens, bearer, silentLogger, userContext } from "./api-fixture.js";

/** This file's own redis-server: it is paused and filled, which the shared one must never be. */
const redisPort = 7201;

/** Resolves with the request's answer, or "hung" when it still has none after `limitMs`. */
async function answerWithin<T>(request: Promise<T>, limitMs: number): Promise<T | "hung"> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<"hung">((resolve) => {
    timer = setTimeout(() => resolve("hung"), limitMs);
  });
  try {
    return await Promise.race([request, hung]);
  } finally {
    clearTimeout(timer);
  }
}

describe("API while Redis is in trouble", () => {
  let redis: IPrivateRedisServer;
  let client: GatewayClient;
  let app: FastifyInstance;
  beforeAll(async () => {
    redis = await startPrivateRedisServer(redisPort);
    client = new GatewayClient({
      gateway: apiTestGateway,
      runtime: { redisUrl: redis.url, prefix: uniquePrefix("api-redis-trouble"), commandTimeoutMs: 300 },
    });
    app = await buildApi({ client, tokens: [apiTestTokens.admin], logger: silentLogger(), ownsClient: true });
    await waitUntil(async () => (await app.inject({ method: "GET", url: "/readyz" })).statusCode === 200);
  });
  afterAll(async () => {
    await app.close();
    await redis.stop();
  });

  it("answers 503 TG_REDIS_UNAVAILABLE while Redis is paused, instead of hanging for the outage", async () => {
    redis.process.kill("SIGSTOP");
    try {
      // The outage outlasts the test's patience (8 s) by far: only the command timeout ends the request.
      const getRun = await answerWithin(
        app.inject({ method: "GET", url: "/v1/runs/run_paused", headers: bearer("admin") }),
        8_000,
      );
      expect(getRun).not.toBe("hung");
      if (getRun === "hung") return;
      expect(getRun.statusCode).toBe(503);
      expect(getRun.json().error.code).toBe("TG_REDIS_UNAVAILABLE");

      const createRun = await answerWithin(
        app.inject({
          method: "POST",
          url: "/v1/runs",
          headers: bearer("admin"),
          payload: { input: "hello", userContext },
        }),
        8_000,
      );
      expect(createRun).not.toBe("hung");
      if (createRun === "hung") return;
      // The run was sent to the paused Redis: it may yet be created, so the answer says so (and which run).
      expect(createRun.statusCode).toBe(503);
      expect(createRun.json().error.code).toBe("TG_RUN_OUTCOME_UNKNOWN");
      expect(createRun.json().error.details.runId).toMatch(/^run_/);
      expect((await app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(503);
    } finally {
      redis.process.kill("SIGCONT");
    }
    await waitUntil(async () => (await app.inject({ method: "GET", url: "/readyz" })).statusCode === 200, {
      message: "ready again after SIGCONT",
    });
  });

  it("answers 503, not 500, while Redis is full, and /readyz says so", async () => {
    await redis.admin.config("SET", "maxmemory-policy", "noeviction");
    await redis.admin.config("SET", "maxmemory", "1");
    try {
      const createRun = await app.inject({
        method: "POST",
        url: "/v1/runs",
        headers: bearer("admin"),
        payload: { input: "hello", userContext },
      });
      expect(createRun.statusCode).toBe(503);
      expect(createRun.json()).toEqual({
        error: { code: "TG_REDIS_UNAVAILABLE", message: "Redis cannot be reached; retry later." },
      });
      const ready = await app.inject({ method: "GET", url: "/readyz" });
      expect(ready.statusCode).toBe(503);
      expect(ready.json().error.code).toBe("TG_REDIS_UNAVAILABLE");
      // Reads still work while writes fail.
      expect(
        (await app.inject({ method: "GET", url: "/v1/runs/run_none", headers: bearer("admin") })).statusCode,
      ).toBe(404);
    } finally {
      await redis.admin.config("SET", "maxmemory", "0");
    }
    expect((await app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
  });
});
