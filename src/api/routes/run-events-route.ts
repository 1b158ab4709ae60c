import { assertRunVisible } from "../auth/tenant-access.js";
import { defineRoute } from "../http/route-definition.js";
import { runEventsHeadersSchema, runEventsQuerySchema, runParamsSchema } from "../schemas/request-schemas.js";
import { serveEventStream } from "../sse/serve-event-stream.js";
import { formatRunEvent } from "../sse/sse-writer.js";
import { uiMessageStreamHeaders, uiMessageStreamOf } from "../sse/ui-message-stream.js";

export const runEventsRoute = defineRoute(
  {
    method: "GET",
    url: "/v1/runs/:runId/events",
    operationId: "streamRunEvents",
    summary: "Follow a run's events (Server-Sent Events)",
    description:
      "Each event has `id:` (its stream id), `event:` (its type) and `data:` (JSON). The stream ends after " +
      "`run-finished`. To resume, send the last id seen as the Last-Event-ID header (or `?after=`): only " +
      "later events follow (an id past the run's last event resumes after its last event). A comment line " +
      "arrives every ~15 s to keep proxies from closing the connection. Streams open at once are capped " +
      "per token and per server (429 TG_RATE_LIMITED). A client that goes away never stops the run. " +
      "`?format=ui-message-stream` answers the AI SDK's UI message stream instead (protocol v1, header " +
      "`x-vercel-ai-ui-message-stream: v1`, `data:` lines only, ending with `data: [DONE]`).",
    tag: "runs",
    // Waits for the run or the events as long as it takes: no whole-request Redis budget.
    waits: true,
    access: "runs:read",
    schemas: { params: runParamsSchema, querystring: runEventsQuerySchema, headers: runEventsHeadersSchema },
    responses: {
      200: {
        description: "An event stream; each `data:` line is a RunEvent as JSON.",
        contentType: "text/event-stream",
        eventData: "RunEvent",
      },
    },
    errors: ["TG_RUN_NOT_FOUND", "TG_RATE_LIMITED", "TG_REDIS_UNAVAILABLE"],
  },
  async (request, reply, { client, settings, eventStreams }) => {
    const { runId } = request.params;
    // The header wins: it is what a reconnecting EventSource sends.
    const afterId = request.headers["last-event-id"] ?? request.query.after ?? "0";
    await assertRunVisible(client, request, runId);
    if (request.query.format === "ui-message-stream") {
      await serveEventStream({
        request,
        reply,
        eventStreams,
        heartbeatMs: settings.sseHeartbeatMs,
        stallTimeoutMs: settings.sseStallTimeoutMs,
        open: async (signal) => uiMessageStreamOf(runId, await client.openEvents(runId, { afterId, signal })),
        format: (lines: string) => lines,
        logContext: { runId },
        headers: uiMessageStreamHeaders,
      });
      return;
    }
    await serveEventStream({
      request,
      reply,
      eventStreams,
      heartbeatMs: settings.sseHeartbeatMs,
      stallTimeoutMs: settings.sseStallTimeoutMs,
      open: (signal) => client.openEvents(runId, { afterId, signal }),
      format: formatRunEvent,
      logContext: { runId },
    });
  },
);
