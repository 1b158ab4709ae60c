import { API_DEFAULTS } from "../api-options.js";
import { runOwnershipOf } from "../auth/run-ownership.js";
import { defineRoute } from "../http/route-definition.js";
import { askBodySchema, idempotencyHeadersSchema } from "../schemas/request-schemas.js";
import { gatewayResponseSchema } from "../schemas/response-schemas.js";

export const askRoute = defineRoute(
  {
    method: "POST",
    url: "/v1/ask",
    operationId: "ask",
    summary: "Enqueue a run and wait for its response",
    description:
      "`timeoutMs` (at most the server's askMaxWaitMs, which is also the default) is both how long the " +
      "request waits and the run's deadline: a run not finished by then ends as timed_out, and the " +
      "response says so. A client that disconnects cancels the run.",
    tag: "runs",
    // Waits for the run or the events as long as it takes: no whole-request Redis budget.
    waits: true,
    access: "runs:write",
    schemas: { body: askBodySchema(API_DEFAULTS.askMaxWaitMs), headers: idempotencyHeadersSchema },
    bodyFor: (settings) => askBodySchema(settings.askMaxWaitMs),
    responses: {
      200: {
        description: "The run's response, whatever its status (completed, failed, cancelled, timed_out).",
        schema: gatewayResponseSchema,
      },
    },
    errors: [
      "TG_UNKNOWN_TOOL",
      "TG_TOOL_NAME_CLASH",
      "TG_IDEMPOTENCY_CONFLICT",
      "TG_THREAD_NOT_FOUND",
      "TG_WAIT_TIMEOUT",
      "TG_REDIS_UNAVAILABLE",
    ],
  },
  async (request, reply, { client, settings }) => {
    // Over askMaxWaitMs is refused by the body's schema: the request would outlive what this server
    // (and the proxies before it) are set up to wait.
    const { timeoutMs = settings.askMaxWaitMs, userContext, tenant, ...body } = request.body;
    const ownership = runOwnershipOf(request, { tenant, userContext });
    const idempotencyKey = request.headers["idempotency-key"];
    // Asking is waiting on behalf of the caller: one who hangs up no longer wants the answer.
    const hangUp = new AbortController();
    const onClose = () => {
      if (!reply.raw.writableEnded) hangUp.abort();
    };
    reply.raw.once("close", onClose);
    try {
      return await client.ask({
        ...body,
        ...ownership,
        timeoutMs,
        abortSignal: hangUp.signal,
        ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
      });
    } finally {
      reply.raw.off("close", onClose);
    }
  },
);
