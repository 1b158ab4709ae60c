import type { FastifyReply } from "fastify";
import type { IRunEvent } from "../../store/index.js";
import { principalOf } from "../auth/authenticate.js";
import { assertRunVisible } from "../auth/tenant-access.js";
import { defineRoute } from "../http/route-definition.js";
import { runEventsHeadersSchema, runEventsQuerySchema, runParamsSchema } from "../schemas/request-schemas.js";
import { eventStreamHeaders, formatRunEvent, heartbeatComment, writeChunk } from "../sse/sse-writer.js";

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
      "per token and per server (429 TG_RATE_LIMITED).",
    tag: "runs",
    access: "runs:read",
    schemas: { params: runParamsSchema, querystring: runEventsQuerySchema, headers: runEventsHeadersSchema },
    responses: {
      200: {
        description: "An event stream; each `data:` line is a RunEvent as JSON.",
        contentType: "text/event-stream",
      },
    },
    errors: ["TG_RUN_NOT_FOUND", "TG_RATE_LIMITED", "TG_REDIS_UNAVAILABLE"],
  },
  async (request, reply, { client, settings, eventStreams }) => {
    const { runId } = request.params;
    // The header wins: it is what a reconnecting EventSource sends.
    const afterId = request.headers["last-event-id"] ?? request.query.after ?? "0";
    await assertRunVisible(client, request, runId);
    // Capped per principal: the same subject name in two tenants is two principals.
    const principal = principalOf(request);
    const place = eventStreams.admit(`${principal.tenant}/${principal.subject}`);
    const stop = new AbortController();
    let events: AsyncGenerator<IRunEvent>;
    try {
      // Opened before the response starts, so an unknown run or a bad id is a plain 404 or 400.
      events = await client.openEvents(runId, { afterId, signal: stop.signal });
    } catch (error) {
      place.release();
      throw error;
    }
    reply.hijack();
    reply.raw.writeHead(200, { ...eventStreamHeaders, "x-request-id": request.id });
    await eventStreams.track(async (closing) => {
      linkAbort(stop, closing, reply);
      const heartbeat = setInterval(() => {
        void writeChunk(reply.raw, heartbeatComment, stop.signal);
      }, settings.sseHeartbeatMs);
      try {
        // A first line flushes the headers, so the client sees the stream open before any event.
        await writeChunk(reply.raw, ": connected\n\n", stop.signal);
        await pipeEvents(events, reply, stop.signal);
      } catch (error) {
        // Headers are out: all that is left is to log and end; the client reconnects with Last-Event-ID.
        request.log.warn({ err: error, runId }, "event stream ended by an error");
      } finally {
        clearInterval(heartbeat);
        stop.abort();
        // Ends a generator that never started (the client left before the first event).
        await events.return(undefined);
        place.release();
        if (!reply.raw.writableEnded) reply.raw.end();
      }
    });
  },
);

async function pipeEvents(
  events: AsyncGenerator<IRunEvent>,
  reply: FastifyReply,
  signal: AbortSignal,
): Promise<void> {
  for await (const event of events) {
    if (!(await writeChunk(reply.raw, formatRunEvent(event), signal))) return;
  }
}

/** Aborts `stop` when the app closes or the client goes away, whichever comes first. */
function linkAbort(stop: AbortController, closing: AbortSignal, reply: FastifyReply): void {
  const abort = () => stop.abort();
  closing.addEventListener("abort", abort, { once: true });
  reply.raw.once("close", abort);
  stop.signal.addEventListener(
    "abort",
    () => {
      closing.removeEventListener("abort", abort);
      reply.raw.off("close", abort);
    },
    { once: true },
  );
  if (closing.aborted) stop.abort();
}
