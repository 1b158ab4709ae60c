import type { Response, ResponseStreamEvent } from "openai/resources/responses/responses";
import { textPieces } from "./text-pieces.js";

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
        for (const delta of textPieces(part.text, chunkCharacters)) {
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
      for (const delta of textPieces(item.arguments, chunkCharacters)) {
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
