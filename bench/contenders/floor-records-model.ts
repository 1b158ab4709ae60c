import type OpenAI from "openai";
import type {
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { benchModelName, echoToolDefinition } from "../lib/scripts.js";

/** A model reply, streamed or not, as the floor with records uses it. */
export interface IModelReply {
  text: string | null;
  toolCalls: ChatCompletionMessageFunctionToolCall[];
  promptTokens: number;
  completionTokens: number;
}

/**
 * One model call. Streamed, the reply's text is handed to `onText` piece by piece as it arrives (what
 * the caller writes to the run's events), and the reply is assembled from the chunks: text joined, tool
 * calls by index. Not streamed, as the floor asks.
 */
export async function callModel(
  openai: OpenAI,
  messages: ChatCompletionMessageParam[],
  streaming: boolean,
  onText: (piece: string) => void,
): Promise<IModelReply> {
  const request = { model: benchModelName, messages, tools: [echoToolDefinition] };
  if (!streaming) {
    const completion = await openai.chat.completions.create(request);
    const message = completion.choices[0]!.message;
    return {
      text: message.content,
      toolCalls: (message.tool_calls ?? []).filter((call) => call.type === "function"),
      promptTokens: completion.usage?.prompt_tokens ?? 0,
      completionTokens: completion.usage?.completion_tokens ?? 0,
    };
  }
  const stream = await openai.chat.completions.create({
    ...request,
    stream: true,
    stream_options: { include_usage: true },
  });
  const reply: IModelReply = { text: null, toolCalls: [], promptTokens: 0, completionTokens: 0 };
  for await (const chunk of stream) {
    if (chunk.usage) {
      reply.promptTokens = chunk.usage.prompt_tokens;
      reply.completionTokens = chunk.usage.completion_tokens;
    }
    const delta = chunk.choices[0]?.delta;
    if (!delta) continue;
    if (delta.content) {
      reply.text = (reply.text ?? "") + delta.content;
      onText(delta.content);
    }
    for (const piece of delta.tool_calls ?? []) {
      let call = reply.toolCalls[piece.index];
      if (call === undefined) {
        call = { id: "", type: "function", function: { name: "", arguments: "" } };
        reply.toolCalls[piece.index] = call;
      }
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.function.name += piece.function.name;
      if (piece.function?.arguments) call.function.arguments += piece.function.arguments;
    }
  }
  return reply;
}
