import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApi } from "../../../src/api/index.js";
import { GatewayClient } from "../../../src/producer/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { apiTestGateway, userContext } from "./api-fixture.js";
import { captureLogger, type ICapturedLogger } from "./capture-logger.js";

const tokens = [
  {
    token: "acme-writer-token-0123456789abcdef",
    subject: "acme-svc",
    roles: ["runs:write" as const],
    tenant: "acme",
  },
  { token: "plain-writer-token-0123456789abcd", subject: "plain-svc", roles: ["runs:write" as const] },
];

describe("API: runs per minute per tenant", () => {
  let harness: IHarness;
  let client: GatewayClient;
  let app: FastifyInstance;
  let log: ICapturedLogger;
  beforeAll(async () => {
    log = captureLogger();
    harness = await createHarness(apiTestGateway, "api-tenant-rate");
    client = new GatewayClient({
      gateway: apiTestGateway,
      runtime: { ...harness.runtimeOptions, tenantLimits: { acme: { runsPerMinute: 2 } } },
    });
    app = await buildApi({ client, tokens, logger: log.logger });
  });
  afterAll(async () => {
    await app.close();
    await client.close();
    await harness.close();
  });

  const post = (url: string, token: string, body: Record<string, unknown> = {}) =>
    app.inject({
      method: "POST",
      url,
      headers: { authorization: `Bearer ${token}` },
      payload: { input: "hi", userContext, ...body },
    });

  it("the token's tenant counts (a body naming another is refused); past the limit: 429 with Retry-After", async () => {
    const acme = tokens[0]!.token;
    expect((await post("/v1/runs", acme)).statusCode).toBe(202);
    expect((await post("/v1/runs", acme, { tenant: "someone-else" })).statusCode).toBe(403);
    expect((await post("/v1/runs", acme)).statusCode).toBe(202);
    for (const url of ["/v1/runs", "/v1/ask"]) {
      const refused = await post(url, acme);
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error.code).toBe("TG_RATE_LIMITED");
      const retryAfter = Number(refused.headers["retry-after"]);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
    // Each refusal is an audit line: who ran into which limit.
    const hits = log.lines().filter((line) => line.audit === true && line.action === "limit.hit");
    expect(hits).toHaveLength(2);
    expect(hits[0]).toMatchObject({ subject: "acme-svc", tenant: "acme", outcome: "refused" });
    // A token without a tenant is the default tenant, which has no limit here.
    expect((await post("/v1/runs", tokens[1]!.token)).statusCode).toBe(202);
  });
});
