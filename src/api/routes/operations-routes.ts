import { TollgateError } from "../../errors/index.js";
import { metricsText } from "../../observability/index.js";
import { defineRoute } from "../http/route-definition.js";
import { healthSchema, readySchema } from "../schemas/response-schemas.js";

export const healthRoute = defineRoute(
  {
    method: "GET",
    url: "/healthz",
    operationId: "health",
    summary: "Liveness: 503 once Redis has answered nothing for TOLLGATE_LIVENESS_REDIS_TIMEOUT_MS",
    description:
      "Sends a PING on the connection every request uses (unless the last one is still unanswered) and " +
      "answers without waiting for it: 503 once Redis has left this process's questions unanswered for " +
      "`TOLLGATE_LIVENESS_REDIS_TIMEOUT_MS` (60 s by default), a process an orchestrator should restart; " +
      "200 again as soon as Redis answers. `/readyz` says whether Redis takes a write now.",
    tag: "operations",
    access: "public",
    schemas: {},
    responses: { 200: { description: "The process is alive and reaches Redis.", schema: healthSchema } },
    errors: ["TG_REDIS_UNAVAILABLE"],
  },
  async (_request, _reply, { redisContact }) => {
    const contact = redisContact();
    if (!contact.reached) {
      throw new TollgateError(
        "TG_REDIS_UNAVAILABLE",
        `Redis has left this process's questions unanswered for ${Math.round(contact.unansweredForMs)} ms.`,
      );
    }
    return { status: "ok" };
  },
);

export const readyRoute = defineRoute(
  {
    method: "GET",
    url: "/readyz",
    operationId: "ready",
    summary: "Readiness: 503 while Redis cannot be reached or refuses writes",
    description:
      "Writes a short-lived key (`<prefix>:readyz`): a Redis that answers PING but refuses writes (full, " +
      "read-only) is not ready either.",
    tag: "operations",
    access: "public",
    schemas: {},
    responses: { 200: { description: "Redis takes writes.", schema: readySchema } },
    errors: ["TG_REDIS_UNAVAILABLE"],
  },
  async (_request, _reply, { client, settings }) => {
    // The client's own connection, which fails fast while Redis is down (no offline queue).
    const answered = await settledWithin(() => client.checkReady(), settings.readyTimeoutMs);
    if (!answered) {
      throw new TollgateError(
        "TG_REDIS_UNAVAILABLE",
        `Redis did not take the readiness write within ${settings.readyTimeoutMs} ms.`,
      );
    }
    return { status: "ready" };
  },
);

/** Whether `check` succeeded within `timeoutMs`; its failure (OOM, READONLY, a timeout) counts as no. */
async function settledWithin(check: () => Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([
      check().then(
        () => true,
        () => false,
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export const metricsRoute = defineRoute(
  {
    method: "GET",
    url: "/metrics",
    operationId: "metrics",
    summary: "Prometheus metrics of this process",
    tag: "operations",
    access: "public",
    schemas: {},
    responses: { 200: { description: "The Prometheus text format.", contentType: "text/plain" } },
  },
  async (_request, reply, { registry }) => {
    const { contentType, body } = await metricsText(registry);
    return reply.type(contentType).header("cache-control", "no-store").send(body);
  },
);

export const openApiRoute = defineRoute(
  {
    method: "GET",
    url: "/v1/openapi.json",
    operationId: "openApiDocument",
    summary: "This document",
    tag: "operations",
    access: "public",
    schemas: {},
    responses: { 200: { description: "The OpenAPI 3.1 document of this API." } },
  },
  async (_request, _reply, { openApiDocument }) => openApiDocument(),
);
