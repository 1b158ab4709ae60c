import type { ServerResponse } from "node:http";
import type { Response, ResponseStreamEvent } from "openai/resources/responses/responses";
import { waitWhileClientConnected } from "./http-io.js";

/**
 * A scripted response as the Responses API streams it: `response.created`, the text or each call's
 * arguments in pieces of `chunkCharacters` (`response.output_text.delta`,
 * `response.function_call_arguments.delta`), then `response.completed` carrying the whole response.
 */
export function toResponseStreamEvents(response: Response, chunkCharacters: number): ResponseStreamEvent[] {
  let sequence = 0;
  const next = () => sequence++;
  const events: ResponseStreamEvent[] = [
    {
      type: "response.created",
      response: { ...response, status: "in_progress", output: [] },
      sequence_number: next(),
    },
  ];
  for (const [outputIndex, item] of response.output.entries()) {
    if (item.type === "message") {
      for (const part of item.content) {
        if (part.type !== "output_text") continue;
        for (const delta of pieces(part.text, chunkCharacters)) {
          events.push({
            type: "response.output_text.delta",
            item_id: item.id,
            output_index: outputIndex,
            content_index: 0,
            delta,
            logprobs: [],
            sequence_number: next(),
          });
        }
      }
    } else if (item.type === "function_call") {
      for (const delta of pieces(item.arguments, chunkCharacters)) {
        events.push({
          type: "response.function_call_arguments.delta",
          item_id: item.id ?? "",
          output_index: outputIndex,
          delta,
          sequence_number: next(),
        });
      }
    }
  }
  events.push({ type: "response.completed", response, sequence_number: next() });
  return events;
}

/** Sends the events as server-sent events, `chunkDelayMs` apart; stops when the client goes away. */
export async function streamResponseEvents(
  response: ServerResponse,
  events: readonly ResponseStreamEvent[],
  chunkDelayMs: number,
): Promise<void> {
  response.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  for (const [index, event] of events.entries()) {
    if (index > 0 && chunkDelayMs > 0 && !(await waitWhileClientConnected(response, chunkDelayMs))) return;
    response.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  }
  response.end();
}

function pieces(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += size) parts.push(text.slice(start, start + size));
  return parts;
}
