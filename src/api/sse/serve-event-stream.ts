import type { FastifyReply, FastifyRequest } from "fastify";
import { principalOf } from "../auth/authenticate.js";
import type { EventStreams, IEventStreamPlace } from "./event-streams.js";
import {
  endStream,
  eventStreamHeaders,
  heartbeatComment,
  type TWriteOutcome,
  writeChunk,
} from "./sse-writer.js";

export interface IServeEventStream<TEvent> {
  request: FastifyRequest;
  reply: FastifyReply;
  eventStreams: EventStreams;
  heartbeatMs: number;
  /** A client that has not taken what was written for this long has its stream closed (sseStallTimeoutMs). */
  stallTimeoutMs: number;
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
    const response = reply.raw;
    // A heartbeat only while the client takes what is written: one that does not gets nothing more.
    const heartbeat = setInterval(() => {
      if (stop.signal.aborted || response.destroyed || response.writableNeedDrain) return;
      response.write(heartbeatComment);
    }, stream.heartbeatMs);
    let outcome = "written" as TWriteOutcome;
    const write = async (chunk: string) => {
      outcome = await writeChunk(response, chunk, stop.signal, stream.stallTimeoutMs);
      return outcome === "written";
    };
    try {
      // A first line flushes the headers, so the client sees the stream open before any event.
      if (await write(": connected\n\n")) {
        for await (const event of events) {
          if (!(await write(stream.format(event)))) break;
        }
      }
    } catch (error) {
      // Headers are out: all that is left is to log and end; the client reconnects with Last-Event-ID.
      request.log.warn({ err: error, ...stream.logContext }, "event stream ended by an error");
    } finally {
      clearInterval(heartbeat);
      stop.abort();
      // Ends a generator that never started (the client left before the first event).
      await events.return(undefined);
      // The place is held until the client has the last bytes (or is cut off): a stream that ended but
      // whose client never reads still holds a socket and its buffer.
      if (outcome === "stalled") response.destroy();
      else outcome = await endStream(response, closing, stream.stallTimeoutMs);
      if (outcome === "stalled") {
        request.log.info(
          { ...stream.logContext, stallTimeoutMs: stream.stallTimeoutMs },
          "event stream closed: its client stopped reading",
        );
      }
      place.release();
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
