import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApi } from "../../../src/api/index.js";
import { TollgateError } from "../../../src/errors/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import {
  apiTestGateway,
  apiTestTokens,
  bearer,
  createApiFixture,
  type IApiFixture,
  silentLogger,
  type TTokenName,
} from "./api-fixture.js";
import { captureLogger } from "./capture-logger.js";

/** One route of each family with the role it needs and a token that lacks it. */
const protectedRoutes: Array<{
  method: "GET" | "POST";
  url: string;
  lacking: TTokenName;
  payload?: object;
}> = [
  {
    method: "POST",
    url: "/v1/runs",
    lacking: "reader",
    payload: { input: "hi", userContext: { userId: "u" } },
  },
  {
    method: "POST",
    url: "/v1/ask",
    lacking: "reader",
    payload: { input: "hi", userContext: { userId: "u" } },
  },
  { method: "GET", url: "/v1/runs/run_missing", lacking: "writer" },
  { method: "GET", url: "/v1/runs/run_missing/events", lacking: "writer" },
  { method: "POST", url: "/v1/runs/run_missing/cancel", lacking: "reader" },
  { method: "GET", url: "/v1/approvals", lacking: "approver" },
  { method: "GET", url: "/v1/approvals/appr_missing", lacking: "approver" },
  { method: "POST", url: "/v1/approvals/appr_missing/approve", lacking: "approvalReader", payload: {} },
  { method: "POST", url: "/v1/approvals/appr_missing/reject", lacking: "approvalReader", payload: {} },
];

const authenticatedOnly = { method: "GET" as const, url: "/v1/tools" };

describe("API auth", () => {
  let fixture: IApiFixture;
  beforeAll(async () => {
    fixture = await createApiFixture("api-auth");
  });
  afterAll(() => fixture.close());

  describe.each([...protectedRoutes, authenticatedOnly])("$method $url", (route) => {
    it("answers 401 without an Authorization header", async () => {
      const response = await fixture.app.inject({ method: route.method, url: route.url });
      expect(response.statusCode).toBe(401);
      expect(response.headers["www-authenticate"]).toBe('Bearer realm="tollgate"');
      expect(response.json().error.code).toBe("TG_UNAUTHORIZED");
    });

    it("answers 401 for another scheme", async () => {
      const response = await fixture.app.inject({
        method: route.method,
        url: route.url,
        headers: { authorization: `Basic ${Buffer.from("root:pw").toString("base64")}` },
      });
      expect(response.statusCode).toBe(401);
      expect(response.headers["www-authenticate"]).toMatch(/^Bearer /);
      expect(response.json().error.code).toBe("TG_UNAUTHORIZED");
    });

    it("answers 401 for a wrong token", async () => {
      const response = await fixture.app.inject({
        method: route.method,
        url: route.url,
        headers: { authorization: `Bearer ${apiTestTokens.admin.token}x` },
      });
      expect(response.statusCode).toBe(401);
      expect(response.headers["www-authenticate"]).toBe('Bearer realm="tollgate", error="invalid_token"');
      expect(response.json()).toEqual({
        error: { code: "TG_UNAUTHORIZED", message: "The bearer token is not valid." },
      });
    });
  });

  it.each(protectedRoutes)("$method $url answers 403 to a token without its role", async (route) => {
    const response = await fixture.app.inject({
      method: route.method,
      url: route.url,
      headers: bearer(route.lacking),
      ...(route.payload ? { payload: route.payload } : {}),
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe("TG_FORBIDDEN");
  });

  it.each(protectedRoutes)("$method $url lets admin through", async (route) => {
    const response = await fixture.app.inject({
      method: route.method,
      url: route.url,
      headers: bearer("admin"),
      ...(route.payload ? { payload: route.payload } : {}),
    });
    // Past auth: whatever the route answers (404 for the missing ids), it is not 401 or 403.
    expect([401, 403]).not.toContain(response.statusCode);
  });

  it("accepts the scheme in any case and any token for /v1/tools", async () => {
    const response = await fixture.app.inject({
      method: "GET",
      url: "/v1/tools",
      headers: { authorization: `bearer ${apiTestTokens.reader.token}` },
    });
    expect(response.statusCode).toBe(200);
  });

  it("refuses a header with more than a scheme and a token", async () => {
    const response = await fixture.app.inject({
      method: "GET",
      url: "/v1/tools",
      headers: { authorization: `Bearer ${apiTestTokens.reader.token} extra` },
    });
    expect(response.statusCode).toBe(401);
  });

  it.each(["/healthz", "/readyz", "/metrics", "/v1/openapi.json"])(
    "serves %s without a token",
    async (url) => {
      const response = await fixture.app.inject({ method: "GET", url });
      expect(response.statusCode).toBe(200);
    },
  );
});

describe("API start-up without tokens", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(apiTestGateway, "api-insecure");
  });
  afterAll(() => harness.close());

  it("refuses to build with no tokens", async () => {
    const error = await buildApi({ client: harness.client, logger: silentLogger() }).catch(
      (thrown: unknown) => thrown,
    );
    expect(TollgateError.is(error, "TG_INVALID_CONFIG")).toBe(true);
    const empty = await buildApi({ client: harness.client, tokens: [], logger: silentLogger() }).catch(
      (thrown: unknown) => thrown,
    );
    expect(TollgateError.is(empty, "TG_INVALID_CONFIG")).toBe(true);
  });

  it("insecure: warns, and every request acts as the anonymous admin", async () => {
    const { logger, lines } = captureLogger();
    const app = await buildApi({ client: harness.client, insecure: true, logger });
    try {
      expect(lines().some((line) => line.level === 40 && /INSECURE/.test(String(line.msg)))).toBe(true);
      const tools = await app.inject({ method: "GET", url: "/v1/approvals" });
      expect(tools.statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it("insecure with tokens still checks tokens", async () => {
    const app = await buildApi({
      client: harness.client,
      insecure: true,
      tokens: [apiTestTokens.admin],
      logger: silentLogger(),
    });
    try {
      expect((await app.inject({ method: "GET", url: "/v1/tools" })).statusCode).toBe(401);
    } finally {
      await app.close();
    }
  });

  it("never writes a token to the log", async () => {
    const { logger, text } = captureLogger("trace");
    const app = await buildApi({ client: harness.client, tokens: [apiTestTokens.admin], logger });
    try {
      await app.inject({ method: "GET", url: "/v1/tools", headers: bearer("admin") });
      await app.inject({
        method: "GET",
        url: "/v1/tools",
        headers: { authorization: `Bearer ${apiTestTokens.admin.token}-wrong` },
      });
      app.log.info({ req: { headers: { authorization: `Bearer ${apiTestTokens.admin.token}` } } }, "probe");
      expect(text()).toContain("incoming request");
      expect(text()).not.toContain(apiTestTokens.admin.token);
    } finally {
      await app.close();
    }
  });

  it("logs requests, but not probes and scrapes", async () => {
    const { logger, lines } = captureLogger();
    const app = await buildApi({ client: harness.client, tokens: [apiTestTokens.admin], logger });
    try {
      for (const url of ["/healthz", "/readyz", "/metrics", "/v1/tools"])
        await app.inject({ method: "GET", url });
      const urls = lines()
        .map((line) => (line.req as { url?: string } | undefined)?.url)
        .filter((url) => url !== undefined);
      expect(urls).toEqual(["/v1/tools"]);
    } finally {
      await app.close();
    }
  });
});
