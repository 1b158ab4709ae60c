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

/** How a write ended: taken (at once, or once the client read), the stream over, or the client stalled. */
export type TWriteOutcome = "written" | "closed" | "stalled";

/**
 * Writes to the response, waiting for it to drain when the client reads slowly, so a stalled reader
 * cannot make the server buffer a run's events without bound. A client that has not taken what was
 * written within `stallTimeoutMs` is "stalled": the caller closes its stream.
 */
export async function writeChunk(
  response: ServerResponse,
  chunk: string,
  signal: AbortSignal,
  stallTimeoutMs: number,
): Promise<TWriteOutcome> {
  if (signal.aborted || response.writableEnded || response.destroyed) return "closed";
  if (response.write(chunk)) return "written";
  const outcome = await waitForClient(response, "drain", signal, stallTimeoutMs);
  return outcome === "done" ? "written" : outcome;
}

/**
 * Ends the response and waits until the client has taken its last bytes; a client that has not within
 * `stallTimeoutMs` (or an abort of `signal`, the app closing) has its connection destroyed: a finished
 * stream whose client never reads would otherwise hold its socket and buffer for good.
 */
export async function endStream(
  response: ServerResponse,
  signal: AbortSignal,
  stallTimeoutMs: number,
): Promise<"closed" | "stalled"> {
  if (!response.writableEnded) response.end();
  if (response.writableFinished || response.destroyed) return "closed";
  const outcome = await waitForClient(response, "finish", signal, stallTimeoutMs);
  if (outcome !== "done" && !response.destroyed) response.destroy();
  return outcome === "stalled" ? "stalled" : "closed";
}

/** Waits for `event` (the client read what was buffered), the response closing, an abort, or the stall. */
function waitForClient(
  response: ServerResponse,
  event: "drain" | "finish",
  signal: AbortSignal,
  stallTimeoutMs: number,
): Promise<"done" | "closed" | "stalled"> {
  return new Promise((resolve) => {
    const settle = (outcome: "done" | "closed" | "stalled") => {
      clearTimeout(timer);
      response.off(event, onDone);
      response.off("close", onClosed);
      signal.removeEventListener("abort", onClosed);
      resolve(outcome);
    };
    const onDone = () => settle("done");
    const onClosed = () => settle("closed");
    const timer = setTimeout(() => settle("stalled"), stallTimeoutMs);
    response.once(event, onDone);
    response.once("close", onClosed);
    signal.addEventListener("abort", onClosed, { once: true });
    if (signal.aborted || response.destroyed) onClosed();
  });
}
