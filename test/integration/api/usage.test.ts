import type { FastifyInstance } from "fastify";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApi } from "../../../src/api/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { GatewayClient } from "../../../src/producer/index.js";
import { usageDayOf } from "../../../src/store/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { seriesValue } from "../../unit/observability/metric-values.js";
import { apiTestGateway, silentLogger, userContext } from "./api-fixture.js";

const pricedGateway = defineGateway({
  tools: apiTestGateway.definition.tools,
  prices: { "gpt-4o-mini": { promptPerMillion: 2, completionPerMillion: 8 } },
});
const tenantLimits = { acme: {} };
const tokens = [
  {
    token: "acme-writer-token-0123456789abcdef",
    subject: "acme-svc",
    roles: ["runs:write" as const],
    tenant: "acme",
  },
  {
    token: "zeta-writer-token-0123456789abcdef",
    subject: "zeta-svc",
    roles: ["runs:write" as const],
    tenant: "zeta",
  },
  // Every tenant's usage: an operator (an admin reads its own tenant's only).
  { token: "usage-admin-token-0123456789abcdef", subject: "ops", roles: ["operator" as const] },
];
const [acme, zeta, admin] = tokens.map((entry) => ({ authorization: `Bearer ${entry.token}` }));

describe("GET /v1/usage: tokens per tenant and model, counted by the workers, priced by the gateway", () => {
  let harness: IHarness;
  let client: GatewayClient;
  let app: FastifyInstance;
  const registry = new Registry();
  beforeAll(async () => {
    harness = await createHarness(pricedGateway, "api-usage");
    await harness.startWorker({ registry, runtime: { ...harness.runtimeOptions, tenantLimits } });
    client = new GatewayClient({
      gateway: pricedGateway,
      runtime: { ...harness.runtimeOptions, tenantLimits },
    });
    app = await buildApi({ client, tokens, logger: silentLogger() });
  });
  afterAll(async () => {
    await app.close();
    await client.close();
    await harness.close();
  });

  const ask = async (headers: { authorization: string }, input: string) => {
    const response = await app.inject({
      method: "POST",
      url: "/v1/ask",
      headers,
      payload: { input, userContext },
    });
    expect(response.statusCode).toBe(200);
    return response.json().usage as { promptTokens: number; completionTokens: number };
  };

  it("sums each tenant's replies; cost at the gateway's prices; metrics label unconfigured tenants other", async () => {
    const first = await ask(
      acme!,
      script({ calls: [{ name: "add", input: { a: 1, b: 2 } }] }, { text: "3" }),
    );
    const second = await ask(acme!, script({ text: "hello" }));
    const other = await ask(zeta!, script({ text: "zeta" }));
    const today = usageDayOf(Date.now());

    const response = await app.inject({
      method: "GET",
      url: `/v1/usage?tenant=acme&from=${today}&to=${today}`,
      headers: admin,
    });
    expect(response.statusCode).toBe(200);
    const promptTokens = first.promptTokens + second.promptTokens;
    const completionTokens = first.completionTokens + second.completionTokens;
    expect(response.json()).toEqual({
      from: today,
      to: today,
      usage: [
        {
          tenant: "acme",
          model: "gpt-4o-mini",
          promptTokens,
          completionTokens,
          totalTokens: promptTokens + completionTokens,
          replies: 3,
          cost: {
            prompt: (promptTokens * 2) / 1e6,
            completion: (completionTokens * 8) / 1e6,
            total: (promptTokens * 2) / 1e6 + (completionTokens * 8) / 1e6,
          },
        },
      ],
    });

    const all = (await app.inject({ method: "GET", url: "/v1/usage", headers: admin })).json();
    expect(all.usage.map((row: { tenant: string }) => row.tenant)).toEqual(["acme", "zeta"]);
    expect(all.usage[1]).toMatchObject({ promptTokens: other.promptTokens, replies: 1 });

    // Tenants named in the configuration keep their name; the others are one label.
    expect(
      await seriesValue(registry, "tollgate_tenant_tokens_total", {
        tenant: "acme",
        model: "gpt-4o-mini",
        kind: "prompt",
      }),
    ).toBe(promptTokens);
    expect(
      await seriesValue(registry, "tollgate_tenant_tokens_total", {
        tenant: "other",
        model: "gpt-4o-mini",
        kind: "prompt",
      }),
    ).toBe(other.promptTokens);
  });

  it("needs admin; a reversed range is 422", async () => {
    expect((await app.inject({ method: "GET", url: "/v1/usage", headers: acme })).statusCode).toBe(403);
    const reversed = await app.inject({
      method: "GET",
      url: "/v1/usage?from=2026-02-02&to=2026-02-01",
      headers: admin,
    });
    expect(reversed.statusCode).toBe(422);
  });
});
