import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApi } from "../../../src/api/index.js";
import { GatewayClient } from "../../../src/producer/index.js";
import { type IPrivateRedisServer, startPrivateRedisServer } from "../../helpers/private-redis-server.js";
import { uniquePrefix } from "../../helpers/test-prefix.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { apiTestGateway, apiTestTokens, bearer, silentLogger, userContext } from "./api-fixture.js";

/** This file's own redis-server: it is paused, which the shared one must never be. */
const redisPort = 7203;
/** The documented budget (TOLLGATE_REDIS_COMMAND_TIMEOUT_MS's default): what a whole request may spend on Redis. */
const budgetMs = 2_000;
/** Scheduling on a shared machine, not Redis: a request answering later than budget + this took another's time. */
const marginMs = 1_000;

const requests = {
  "POST /v1/runs": { method: "POST", url: "/v1/runs", payload: { input: "hello", userContext } },
  "GET /v1/runs/:id": { method: "GET", url: "/v1/runs/run_paused" },
  "GET /v1/approvals": { method: "GET", url: "/v1/approvals" },
  "GET /v1/approvals?status=decided": { method: "GET", url: "/v1/approvals?status=decided" },
  "GET /v1/approvals/:id": { method: "GET", url: "/v1/approvals/run_paused-s0-c0-approval" },
  "POST /v1/runs/:id/cancel": { method: "POST", url: "/v1/runs/run_paused/cancel" },
} as const;

/** How long after another request the measured one starts: while the other's commands are in flight. */
const behindMs = 100;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe("API while Redis is paused: every request answers 503 within the Redis budget", () => {
  let redis: IPrivateRedisServer;
  let client: GatewayClient;
  let app: FastifyInstance;
  beforeAll(async () => {
    redis = await startPrivateRedisServer(redisPort);
    client = new GatewayClient({
      gateway: apiTestGateway,
      runtime: { redisUrl: redis.url, prefix: uniquePrefix("api-redis-budget"), commandTimeoutMs: budgetMs },
    });
    app = await buildApi({ client, tokens: [apiTestTokens.admin], logger: silentLogger(), ownsClient: true });
    await waitUntil(async () => (await app.inject({ method: "GET", url: "/readyz" })).statusCode === 200);
  });
  afterAll(async () => {
    await app.close();
    await redis.stop();
  });

  for (const [name, request] of Object.entries(requests)) {
    it(`${name}: 503 within ${budgetMs} ms (+${marginMs} ms), also behind another request`, async () => {
      // Warm: a first request after start may still be connecting, which is not what is measured.
      await app.inject({ ...request, headers: bearer("admin") });
      redis.process.kill("SIGSTOP");
      try {
        // Another request's commands are in flight when this one starts, as under any load: its time
        // behind them counts against the same budget (it once came on top: up to twice the budget).
        const earlier = app.inject({ method: "GET", url: "/v1/runs/run_earlier", headers: bearer("admin") });
        await delay(behindMs);
        const started = performance.now();
        const response = await app.inject({ ...request, headers: bearer("admin") });
        const tookMs = performance.now() - started;
        expect(response.statusCode).toBe(503);
        // A run sent whose answer never came may exist: that is said with a code of its own.
        expect(["TG_REDIS_UNAVAILABLE", "TG_RUN_OUTCOME_UNKNOWN"]).toContain(response.json().error.code);
        expect(tookMs).toBeLessThan(budgetMs + marginMs);
        expect((await earlier).statusCode).toBe(503);
      } finally {
        redis.process.kill("SIGCONT");
      }
      await waitUntil(async () => (await app.inject({ method: "GET", url: "/readyz" })).statusCode === 200, {
        message: "ready again after SIGCONT",
      });
    });
  }
});
