import type { ChatCompletion } from "openai/resources/chat/completions";
import type { TScriptedReply } from "./script-interpreter.js";

/** The model name answered when the request named none. */
export const SCRIPTED_MODEL_NAME = "scripted";

/** A deterministic stand-in for a tokenizer: about four characters per token, as for English text. */
export function estimateTokens(characters: number): number {
  return Math.ceil(characters / 4);
}

/** A `chat.completion` body, typed by the SDK so that the SDK is sure to read it. */
export function toChatCompletion(details: {
  reply: TScriptedReply;
  completionId: string;
  model: string;
  createdSeconds: number;
  /** Characters of the prompt (the request's messages as JSON), for the usage. */
  promptCharacters: number;
}): ChatCompletion {
  const { reply } = details;
  const completionCharacters =
    reply.kind === "text"
      ? reply.text.length
      : reply.toolCalls.reduce((sum, call) => sum + call.name.length + call.argumentsJson.length, 0);
  const promptTokens = estimateTokens(details.promptCharacters);
  const completionTokens = estimateTokens(completionCharacters);
  return {
    id: details.completionId,
    object: "chat.completion",
    created: details.createdSeconds,
    model: details.model,
    choices: [
      {
        index: 0,
        logprobs: null,
        finish_reason: reply.kind === "text" ? (reply.finishReason ?? "stop") : "tool_calls",
        message:
          reply.kind === "text"
            ? { role: "assistant", content: reply.text, refusal: null }
            : {
                role: "assistant",
                content: null,
                refusal: null,
                tool_calls: reply.toolCalls.map((call) => ({
                  id: call.id,
                  type: "function",
                  function: { name: call.name, arguments: call.argumentsJson },
                })),
              },
      },
    ],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  };
}
