import type { FastifyReply } from "fastify";
import { TollgateError } from "../../errors/index.js";
import type { IRunEvent } from "../../store/index.js";
import { defineRoute } from "../http/route-definition.js";
import { runEventsHeadersSchema, runEventsQuerySchema, runParamsSchema } from "../schemas/request-schemas.js";
import { runEventSource, runIsFinished } from "../sse/run-event-source.js";
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
      "later events follow. A comment line arrives every ~15 s to keep proxies from closing the connection.",
    tag: "runs",
    access: "runs:read",
    schemas: { params: runParamsSchema, querystring: runEventsQuerySchema, headers: runEventsHeadersSchema },
    responses: {
      200: {
        description: "An event stream; each `data:` line is a RunEvent as JSON.",
        contentType: "text/event-stream",
      },
    },
    errors: ["TG_RUN_NOT_FOUND", "TG_REDIS_UNAVAILABLE"],
  },
  async (request, reply, { client, settings, eventStreams }) => {
    const { runId } = request.params;
    // The header wins: it is what a reconnecting EventSource sends.
    const afterId = request.headers["last-event-id"] ?? request.query.after ?? "0";
    // Checked before the stream opens, so an unknown run is a plain 404.
    const finished = await runIsFinished(client.runtime, runId);
    if (finished === undefined) {
      throw new TollgateError("TG_RUN_NOT_FOUND", `No run has id ${runId}.`, { runId });
    }
    reply.hijack();
    reply.raw.writeHead(200, { ...eventStreamHeaders, "x-request-id": request.id });
    await eventStreams.track(async (closing) => {
      const stop = linkedAbort(closing, reply);
      const heartbeat = setInterval(() => {
        void writeChunk(reply.raw, heartbeatComment, stop.signal);
      }, settings.sseHeartbeatMs);
      try {
        // A first line flushes the headers, so the client sees the stream open before any event.
        await writeChunk(reply.raw, ": connected\n\n", stop.signal);
        const events = runEventSource(client.runtime, runId, { afterId, finished, signal: stop.signal });
        await pipeEvents(events, reply, stop.signal);
      } catch (error) {
        // Headers are out: all that is left is to log and end; the client reconnects with Last-Event-ID.
        request.log.warn({ err: error, runId }, "event stream ended by an error");
      } finally {
        clearInterval(heartbeat);
        stop.abort();
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

/** Aborts when the app closes or the client goes away, whichever comes first. */
function linkedAbort(closing: AbortSignal, reply: FastifyReply): AbortController {
  const stop = new AbortController();
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
  return stop;
}
