import type { ChatCompletion, ChatCompletionChunk } from "openai/resources/chat/completions";

/** Hears a streamed reply as it arrives. */
export interface IModelStreamListener {
  /** A piece of the reply's text, in order. */
  text(piece: string): void;
  /**
   * A request for this reply is about to be sent. When an earlier one already gave text (its stream
   * broke, or the router retries or falls back), that text is void: the new attempt's text follows.
   */
  attemptStarted(): void;
}

interface IToolCallParts {
  id: string;
  name: string;
  argumentParts: string[];
}

/**
 * Reads a Chat Completions stream to its end and returns the completion it amounts to, handing each
 * piece of text to `onText` as it arrives. Tool calls are assembled from their deltas by index (the id
 * and name come with the first, the arguments in pieces); the usage comes with the last chunk
 * (`stream_options.include_usage`). Pieces are kept in arrays and joined once: no string rebuilt per chunk.
 */
export async function assembleCompletion(
  chunks: AsyncIterable<ChatCompletionChunk>,
  onText: ((piece: string) => void) | undefined,
  idle?: { chunkArrived(): void },
): Promise<ChatCompletion> {
  let id = "";
  let model = "";
  let created = 0;
  let finishReason: ChatCompletion.Choice["finish_reason"] | null = null;
  let usage: ChatCompletion["usage"];
  let sawChoice = false;
  const textParts: string[] = [];
  const toolCalls: IToolCallParts[] = [];
  for await (const chunk of chunks) {
    idle?.chunkArrived();
    id ||= chunk.id;
    model ||= chunk.model;
    created ||= chunk.created;
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (choice === undefined) continue;
    sawChoice = true;
    const delta = choice.delta;
    if (typeof delta.content === "string" && delta.content !== "") {
      textParts.push(delta.content);
      onText?.(delta.content);
    }
    // Guarded, not `?? []`: no array made for each of the ~2,000 chunks of a text answer.
    const callDeltas = delta.tool_calls;
    if (callDeltas !== undefined) {
      for (const callDelta of callDeltas) {
        let call = toolCalls[callDelta.index];
        if (call === undefined) {
          call = { id: "", name: "", argumentParts: [] };
          toolCalls[callDelta.index] = call;
        }
        if (callDelta.id) call.id = callDelta.id;
        if (callDelta.function?.name) call.name += callDelta.function.name;
        if (callDelta.function?.arguments) call.argumentParts.push(callDelta.function.arguments);
      }
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  const calls = toolCalls.filter((call) => call !== undefined);
  return {
    id,
    object: "chat.completion",
    created,
    model,
    choices: sawChoice
      ? [
          {
            index: 0,
            logprobs: null,
            // Null when the endpoint never said: toModelReply reads it as such, as for a completion.
            finish_reason: finishReason as ChatCompletion.Choice["finish_reason"],
            message: {
              role: "assistant",
              content: textParts.length > 0 ? textParts.join("") : null,
              refusal: null,
              ...(calls.length > 0
                ? {
                    tool_calls: calls.map((call) => ({
                      id: call.id,
                      type: "function" as const,
                      function: { name: call.name, arguments: call.argumentParts.join("") },
                    })),
                  }
                : {}),
            },
          },
        ]
      : [],
    ...(usage ? { usage } : {}),
  };
}
