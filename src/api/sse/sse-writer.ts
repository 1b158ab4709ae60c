import { once } from "node:events";
import type { ServerResponse } from "node:http";
import type { TRunEvent, TStoredApprovalEvent } from "../../contracts/index.js";

/** The headers of an event stream; `x-accel-buffering` stops nginx from holding events back. */
export const eventStreamHeaders = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
} as const;

/** One event in the SSE wire format; `data` is one line, since JSON.stringify emits no line breaks. */
export function formatRunEvent(event: TRunEvent): string {
  const data = JSON.stringify({ id: event.id, runId: event.runId, type: event.type, data: event.data });
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${data}\n\n`;
}

/** An approval event: `data` is the stream entry's JSON (without the id, which is the SSE `id:`). */
export function formatApprovalEvent(event: TStoredApprovalEvent): string {
  const { id, ...data } = event;
  return `id: ${id}\nevent: ${event.type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A comment line: ignored by EventSource, but it keeps proxies from closing an idle connection. */
export const heartbeatComment = ": heartbeat\n\n";

/**
 * Writes to the response, waiting for it to drain when the client reads slowly, so a stalled reader
 * cannot make the server buffer a run's events without bound. Returns false once the stream is over.
 */
export async function writeChunk(
  response: ServerResponse,
  chunk: string,
  signal: AbortSignal,
): Promise<boolean> {
  if (signal.aborted || response.writableEnded || response.destroyed) return false;
  if (response.write(chunk)) return true;
  try {
    await once(response, "drain", { signal });
    return true;
  } catch {
    return false;
  }
}
