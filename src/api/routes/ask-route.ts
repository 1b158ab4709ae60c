import { API_DEFAULTS } from "../api-options.js";
import { runOwnershipOf } from "../auth/run-ownership.js";
import { defineRoute } from "../http/route-definition.js";
import { askBodySchema, idempotencyHeadersSchema } from "../schemas/request-schemas.js";
import { gatewayResponseSchema } from "../schemas/response-schemas.js";
import { admitEventStream, serveEventStream } from "../sse/serve-event-stream.js";
import { formatRunEvent } from "../sse/sse-writer.js";

export const askRoute = defineRoute(
  {
    method: "POST",
    url: "/v1/ask",
    operationId: "ask",
    traced: true,
    summary: "Enqueue a run and wait for its response",
    description:
      "`timeoutMs` (at most the server's askMaxWaitMs, which is also the default) is both how long the " +
      "request waits and the run's deadline: a run not finished by then ends as timed_out, and the " +
      "response says so. With `Accept: text/event-stream` the request does not wait: it answers the " +
      "run's events as `GET /v1/runs/:runId/events` does (header `x-run-id`), text as it is written, " +
      "ending after `run-finished`; over the stream caps it answers 429 TG_RATE_LIMITED having created no run. " +
      "A client that disconnects, waiting or streaming, never stops the run " +
      "(`POST /v1/runs/:runId/cancel` does); its response stays readable at `GET /v1/runs/:runId`.",
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
      "TG_RATE_LIMITED",
      "TG_REDIS_UNAVAILABLE",
    ],
  },
  async (request, reply, { client, settings, eventStreams }) => {
    // Over askMaxWaitMs is refused by the body's schema: the request would outlive what this server
    // (and the proxies before it) are set up to wait.
    const { timeoutMs = settings.askMaxWaitMs, userContext, tenant, ...body } = request.body;
    const ownership = runOwnershipOf(request, { tenant, userContext });
    const idempotencyKey = request.headers["idempotency-key"];
    if (acceptsEventStream(request.headers.accept)) {
      // The stream's place first: a caller refused 429 comes back after Retry-After, and a run created
      // for the refused request would be a second run doing the same work (issue 38).
      const place = admitEventStream(request, eventStreams);
      let runId: string;
      try {
        ({ runId } = await client.run({
          ...body,
          ...ownership,
          timeoutMs,
          ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
        }));
      } catch (error) {
        place.release();
        throw error;
      }
      await serveEventStream({
        request,
        reply,
        eventStreams,
        place,
        heartbeatMs: settings.sseHeartbeatMs,
        stallTimeoutMs: settings.sseStallTimeoutMs,
        open: (signal) => client.openEvents(runId, { signal }),
        format: formatRunEvent,
        logContext: { runId },
        headers: { "x-run-id": runId },
      });
      return reply;
    }
    // A caller that hangs up stops the waiting, never the run (issue 23): a dropped connection (a proxy's
    // idle timeout, a phone changing networks) is no decision to cancel; `POST /v1/runs/:runId/cancel` is.
    const hangUp = new AbortController();
    const onClose = () => {
      if (!reply.raw.writableEnded) hangUp.abort();
    };
    reply.raw.once("close", onClose);
    try {
      return await client.ask(
        {
          ...body,
          ...ownership,
          timeoutMs,
          ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
        },
        { stopWaiting: hangUp.signal },
      );
    } catch (error) {
      // Nobody is left to answer: the run goes on, its response kept for `GET /v1/runs/:runId`.
      if (hangUp.signal.aborted) return reply.hijack();
      throw error;
    } finally {
      reply.raw.off("close", onClose);
    }
  },
);

/** Whether the caller asked for an event stream (`Accept: text/event-stream`, alone or among others). */
function acceptsEventStream(accept: string | undefined): boolean {
  return accept?.toLowerCase().includes("text/event-stream") ?? false;
}
