import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { TScriptedReply } from "./script-interpreter.js";
import { estimateTokens } from "./scripted-completion.js";
import { textPieces } from "./text-pieces.js";

/** What a streamed reply is made of, besides the reply itself. */
export interface IChunkDetails {
  reply: TScriptedReply;
  completionId: string;
  model: string;
  createdSeconds: number;
  promptCharacters: number;
  /** Characters of text or arguments per chunk; the last piece may be shorter. */
  chunkCharacters: number;
  /** `stream_options.include_usage`: a last chunk with no choices carries the usage. */
  includeUsage: boolean;
}

/**
 * A reply as OpenAI streams it (`chat.completion.chunk`): the role first, then the text or each tool
 * call (its id and name, then its arguments in pieces), then the finish reason, then the usage when
 * asked for. Typed by the SDK so that the SDK's stream reader is sure to assemble it.
 */
export function toChatCompletionChunks(details: IChunkDetails): ChatCompletionChunk[] {
  const { reply } = details;
  const chunk = (
    delta: ChatCompletionChunk.Choice.Delta,
    finishReason: ChatCompletionChunk.Choice["finish_reason"] = null,
  ): ChatCompletionChunk => ({
    id: details.completionId,
    object: "chat.completion.chunk",
    created: details.createdSeconds,
    model: details.model,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  });
  const chunks: ChatCompletionChunk[] = [chunk({ role: "assistant", content: "" })];
  let completionCharacters = 0;
  if (reply.kind === "text") {
    completionCharacters = reply.text.length;
    for (const piece of textPieces(reply.text, details.chunkCharacters)) {
      chunks.push(chunk({ content: piece }));
    }
  } else {
    for (const [index, call] of reply.toolCalls.entries()) {
      completionCharacters += call.name.length + call.argumentsJson.length;
      chunks.push(
        chunk({
          tool_calls: [
            { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } },
          ],
        }),
      );
      for (const piece of textPieces(call.argumentsJson, details.chunkCharacters)) {
        chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
      }
    }
  }
  chunks.push(chunk({}, reply.kind === "text" ? (reply.finishReason ?? "stop") : "tool_calls"));
  if (details.includeUsage) {
    const promptTokens = estimateTokens(details.promptCharacters);
    const completionTokens = estimateTokens(completionCharacters);
    chunks.push({
      id: details.completionId,
      object: "chat.completion.chunk",
      created: details.createdSeconds,
      model: details.model,
      choices: [],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    });
  }
  return chunks;
}
