import type { ServerResponse } from "node:http";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { waitWhileClientConnected } from "./http-io.js";

/** How the scripted model streams (`stream: true`). */
export interface IStreamingOptions {
  /** Characters of text or tool arguments per chunk: 4 is about one token, as OpenAI sends them. */
  chunkCharacters: number;
  /** Pause between two chunks; 0 sends the whole reply in one write. */
  chunkDelayMs: number;
}

/**
 * Sends chunks as server-sent events, `chunkDelayMs` apart, and stops early when the client goes away.
 * `done` ends with `data: [DONE]` as OpenAI does; `cut` destroys the socket after the last chunk, a
 * stream broken mid-answer; `stall` sends nothing more and waits for the client to leave (the server's
 * close ends it too), a stream gone silent mid-answer.
 */
export async function streamChunks(
  response: ServerResponse,
  chunks: readonly ChatCompletionChunk[],
  options: { chunkDelayMs: number; ending: "done" | "cut" | "stall" },
): Promise<void> {
  response.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  if (options.chunkDelayMs <= 0) {
    response.write(chunks.map(toEvent).join(""));
  } else {
    for (const [index, chunk] of chunks.entries()) {
      if (index > 0 && !(await waitWhileClientConnected(response, options.chunkDelayMs))) {
        return;
      }
      response.write(toEvent(chunk));
    }
  }
  if (options.ending === "stall") {
    if (!response.destroyed) await new Promise<void>((resolve) => response.once("close", resolve));
    return;
  }
  if (options.ending === "cut") {
    // Let the chunks already written leave before the socket goes.
    response.socket?.end(() => response.destroy());
    return;
  }
  response.end("data: [DONE]\n\n");
}

function toEvent(chunk: ChatCompletionChunk): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}
