import type { ServerResponse } from "node:http";
import { waitWhileClientConnected } from "./http-io.js";

/** How a scripted stream ends: as the API does, cut mid-answer, or gone silent mid-answer. */
export type TStreamEnding = "done" | "cut" | "stall";

/**
 * Sends server-sent events (each already written out, `data: …\n\n`), `chunkDelayMs` apart, and stops
 * early when the client goes away. `done` ends the stream as the API does (`doneEvent`, if the API has
 * one, e.g. Chat Completions' `data: [DONE]`); `cut` destroys the socket after the last event, a stream
 * broken mid-answer; `stall` sends nothing more and waits for the client to leave (the server's close
 * ends it too), a stream gone silent mid-answer.
 */
export async function streamChunks(
  response: ServerResponse,
  events: readonly string[],
  options: { chunkDelayMs: number; ending: TStreamEnding; doneEvent?: string },
): Promise<void> {
  // No `connection` header of ours: Node then writes `Connection: keep-alive` with its `Keep-Alive:
  // timeout=N` hint, by which a client's pool drops the idle socket before the server does; set by hand,
  // the hint was left out and a request sent on a socket as the server closed it failed (ECONNRESET).
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  if (options.chunkDelayMs <= 0) {
    response.write(events.join(""));
  } else {
    for (const [index, event] of events.entries()) {
      if (index > 0 && !(await waitWhileClientConnected(response, options.chunkDelayMs))) {
        return;
      }
      response.write(event);
    }
  }
  if (options.ending === "stall") {
    if (!response.destroyed) await new Promise<void>((resolve) => response.once("close", resolve));
    return;
  }
  if (options.ending === "cut") {
    // Let the events already written leave before the socket goes.
    response.socket?.end(() => response.destroy());
    return;
  }
  response.end(options.doneEvent ?? "");
}
