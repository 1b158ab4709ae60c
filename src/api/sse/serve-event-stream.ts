import type { FastifyReply, FastifyRequest } from "fastify";
import { principalOf } from "../auth/authenticate.js";
import type { EventStreams, IEventStreamPlace } from "./event-streams.js";
import { eventStreamHeaders, heartbeatComment, writeChunk } from "./sse-writer.js";

export interface IServeEventStream<TEvent> {
  request: FastifyRequest;
  reply: FastifyReply;
  eventStreams: EventStreams;
  heartbeatMs: number;
  /** Opens the events before the response starts, so that a refusal (404, 400) is a plain error. */
  open(signal: AbortSignal): Promise<AsyncGenerator<TEvent>>;
  /** One event in the SSE wire format. */
  format(event: TEvent): string;
  /** What the log line names when the stream ends by an error. */
  logContext: Record<string, unknown>;
  /** Headers beside the event stream's own (the UI message stream's protocol header). */
  headers?: Record<string, string>;
  /**
   * A place taken before (admitEventStream), by a route that must know the stream is admitted before it
   * does anything else (`POST /v1/ask` creates its run only then). Absent: taken here.
   */
  place?: IEventStreamPlace;
}

/**
 * Takes a place for a stream of the request's principal under the per-token and per-server caps, or
 * throws 429 TG_RATE_LIMITED. Capped per principal: the same subject name in two tenants is two principals.
 */
export function admitEventStream(request: FastifyRequest, eventStreams: EventStreams): IEventStreamPlace {
  const principal = principalOf(request);
  return eventStreams.admit(`${principal.tenant}/${principal.subject}`);
}

/**
 * Serves one Server-Sent Events stream (a run's events, the approval events): takes a place under the
 * per-token and per-server caps, opens the events, then writes them with a heartbeat until they end, the
 * client leaves or the app closes; the place is given back however it ends.
 */
export async function serveEventStream<TEvent>(stream: IServeEventStream<TEvent>): Promise<void> {
  const { request, reply, eventStreams } = stream;
  const place = stream.place ?? admitEventStream(request, eventStreams);
  const stop = new AbortController();
  let events: AsyncGenerator<TEvent>;
  try {
    events = await stream.open(stop.signal);
  } catch (error) {
    place.release();
    throw error;
  }
  reply.hijack();
  // A traced request's `traceparent` (set before the stream opened) goes out with the stream's headers.
  const traceparent = reply.getHeader("traceparent");
  reply.raw.writeHead(200, {
    ...eventStreamHeaders,
    ...stream.headers,
    ...(typeof traceparent === "string" ? { traceparent } : {}),
    "x-request-id": request.id,
  });
  await eventStreams.track(async (closing) => {
    linkAbort(stop, closing, reply);
    const heartbeat = setInterval(() => {
      void writeChunk(reply.raw, heartbeatComment, stop.signal);
    }, stream.heartbeatMs);
    try {
      // A first line flushes the headers, so the client sees the stream open before any event.
      await writeChunk(reply.raw, ": connected\n\n", stop.signal);
      for await (const event of events) {
        if (!(await writeChunk(reply.raw, stream.format(event), stop.signal))) break;
      }
    } catch (error) {
      // Headers are out: all that is left is to log and end; the client reconnects with Last-Event-ID.
      request.log.warn({ err: error, ...stream.logContext }, "event stream ended by an error");
    } finally {
      clearInterval(heartbeat);
      stop.abort();
      // Ends a generator that never started (the client left before the first event).
      await events.return(undefined);
      place.release();
      if (!reply.raw.writableEnded) reply.raw.end();
    }
  });
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
