import fc from "fast-check";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { IApiRoute } from "../../src/api/http/route-definition.js";
import { buildApi } from "../../src/api/index.js";
import { apiRoutes } from "../../src/api/route-table.js";
import { createHarness, type IHarness } from "../helpers/harness.js";
import { clientInternals } from "../helpers/internals.js";
import { testRedisUrl } from "../helpers/redis-url.js";
import { apiTestGateway, apiTestTokens, silentLogger } from "../integration/api/api-fixture.js";
import { chaosProfile, chaosSeed } from "./chaos-profile.js";
import { keysUnder, unfinishedJobs } from "./queue-checks.js";

const adminToken = apiTestTokens.admin.token;

/** Bodies no route may accept: wrong types, missing fields, unknown keys, prototype keys, deep or huge. */
const hostileBody = fc.oneof(
  fc.anything(),
  fc.jsonValue(),
  fc.string(),
  fc
    .record({ input: fc.anything(), userContext: fc.anything() }, { requiredKeys: [] })
    // Without userContext a run is the token's own (a valid request): keep only invalid shapes.
    .filter(
      (body) =>
        typeof body.input !== "string" ||
        ("userContext" in body && (typeof body.userContext !== "object" || body.userContext === null)),
    ),
  fc
    .tuple(fc.constantFrom("__proto__", "constructor", "prototype", "extra"), fc.anything())
    .map(([key, value]) => ({ input: "hello", userContext: { userId: "u" }, [key]: value })),
  // Deep JSON as text: a 6,000-deep object would overflow the stack of the test's own tools first.
  fc
    .integer({ min: 100, max: 6_000 })
    .map(
      (depth) =>
        `{"input":"deep","userContext":{"userId":"u"},"metadata":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`,
    ),
  fc.constant({ input: "x".repeat(2_000_000), userContext: { userId: "u" } }),
);

const hostileId = fc.oneof(
  fc.string({ minLength: 1 }),
  fc.string({ minLength: 101, maxLength: 400 }),
  fc.constantFrom("%", "%zz", "%E0%A4%A", "..", "%00", "a%2Fb", "__proto__", "constructor"),
);

const hostileQuery = fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 40 }), {
  maxKeys: 4,
});

const hostileHeaders = fc.record(
  {
    "content-type": fc.constantFrom(
      "application/json",
      "text/plain",
      "application/x-www-form-urlencoded",
      "💥",
      "",
    ),
    authorization: fc.oneof(fc.constant(`Bearer ${adminToken}`), fc.string({ maxLength: 80 })),
    "last-event-id": fc.oneof(fc.string({ maxLength: 30 }), fc.constant("99999999999999999999999-1")),
    "x-request-id": fc.string({ maxLength: 300 }),
  },
  { requiredKeys: ["authorization"] },
);

function urlOf(template: string, id: string, query: Record<string, string>): string {
  // Ids are percent-encoded like a client would, except the raw ones meant to test bad encoding.
  const pathId = /^%|\.\./.test(id) ? id : encodeURIComponent(id);
  const search = new URLSearchParams(query).toString();
  return template.replace(/:[A-Za-z]+/, pathId) + (search ? `?${search}` : "");
}

/** An event stream's response: its body read when it is an error, else the stream closed at once. */
async function settledStream(
  response: LightMyRequestResponse,
): Promise<{ statusCode: number; body: string; json(): unknown }> {
  const stream = response.stream();
  let body = "";
  if (response.statusCode !== 200) for await (const chunk of stream) body += String(chunk);
  stream.destroy();
  return { statusCode: response.statusCode, body, json: () => JSON.parse(body) };
}

/** Whether the route's own body schema accepts this payload as the server would parse it. */
function acceptedBy(route: IApiRoute, payload: string): boolean {
  const schema = route.spec.schemas.body;
  if (!schema) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return false;
  }
  return schema.safeParse(parsed).success;
}

function headerSafe(headers: Record<string, string | undefined>): Record<string, string> {
  // Node refuses header values with control characters before they reach the server.
  return Object.fromEntries(
    Object.entries(headers).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && /^[\t\x20-\x7e]*$/.test(entry[1]),
    ),
  );
}

/**
 * Every route of the HTTP API under hostile requests (fast-check): never a 5xx, every error in the
 * documented envelope, and nothing enqueued (no worker runs: a job would stay in the queue to be seen).
 */
describe("chaos: hostile HTTP requests on every route", () => {
  const seed = chaosSeed("api-properties");
  let harness: IHarness;
  let app: FastifyInstance;
  beforeAll(async () => {
    // With a link secret, so that the approval link routes check signatures rather than refuse at once.
    harness = await createHarness(apiTestGateway, "chaos-api", {
      linkSecret: "chaos-link-secret-0123456789abcdef0123",
    });
    app = await buildApi({
      client: harness.client,
      tokens: Object.values(apiTestTokens),
      logger: silentLogger(),
      // No worker runs here: an ask that got through would wait this long before failing its property.
      askMaxWaitMs: 3_000,
    });
  });
  // A route that enqueued something fails alone: the next route starts from empty queues and no runs.
  afterEach(async (context) => {
    if (context.task.result?.state !== "fail") return;
    const { runs, tools, approvals } = clientInternals(harness.client).runtime.queues;
    for (const queue of [runs, tools, approvals]) await queue.obliterate({ force: true });
    const redis = new Redis(testRedisUrl, { maxRetriesPerRequest: 1 });
    try {
      const keys = await keysUnder(redis, harness.prefix);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
  });
  afterAll(async () => {
    await app.close();
    await harness.close();
  });

  it.each(apiRoutes.map((route) => [`${route.spec.method} ${route.spec.url}`, route] as const))(
    "%s",
    async (_name, route) => {
      const { method, url } = route.spec;
      const hasBody = method === "POST";
      const endless = route.spec.url === "/v1/approvals/events";
      await fc.assert(
        fc.asyncProperty(
          hostileBody,
          hostileId,
          hostileQuery,
          hostileHeaders,
          async (body, id, query, headers) => {
            const payload = typeof body === "string" ? body : (JSON.stringify(body) ?? "null");
            // JSON drops what it cannot say (an `undefined` value, a function): a body that became a valid
            // request on the way is not hostile, and a run it enqueued would wait here forever.
            fc.pre(!acceptedBy(route, payload));
            const raw = await app.inject({
              method,
              url: urlOf(url, id, query),
              headers: headerSafe(headers),
              ...(hasBody ? { payload } : {}),
              // A stream that never ends by itself (the approval events): the status and, for an error,
              // the body are read; an open stream is let go.
              ...(endless ? { payloadAsStream: true } : {}),
            });
            const response = endless ? await settledStream(raw) : raw;
            expect(response.statusCode, response.body.slice(0, 300)).toBeLessThan(500);
            if (hasBody) expect(response.statusCode, response.body.slice(0, 300)).toBeGreaterThanOrEqual(400);
            if (response.statusCode >= 400) {
              const envelope = response.json() as { error?: { code?: unknown; message?: unknown } };
              expect(typeof envelope.error?.code, response.body.slice(0, 300)).toBe("string");
              expect(typeof envelope.error?.message).toBe("string");
            }
          },
        ),
        { numRuns: chaosProfile.propertyRuns, seed },
      );
      expect(await unfinishedJobs(harness.client)).toEqual({});
      const redis = new Redis(testRedisUrl, { maxRetriesPerRequest: 1 });
      try {
        const runKeys = (await keysUnder(redis, harness.prefix)).filter((key) => key.includes(":run:"));
        expect(runKeys).toEqual([]);
      } finally {
        redis.disconnect();
      }
    },
  );
});
