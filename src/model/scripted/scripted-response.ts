import type { Response, ResponseOutputItem } from "openai/resources/responses/responses";
import type { TScriptedReply } from "./script-interpreter.js";
import { estimateTokens } from "./scripted-completion.js";

/** A Responses API `response` body, typed by the SDK so that the SDK is sure to read it. */
export function toScriptedResponse(details: {
  reply: TScriptedReply;
  responseId: string;
  model: string;
  createdSeconds: number;
  /** Characters of the input as sent, for the usage. */
  promptCharacters: number;
}): Response {
  const { reply, responseId } = details;
  const output: ResponseOutputItem[] =
    reply.kind === "text"
      ? [
          {
            type: "message",
            id: `msg_${responseId}`,
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: reply.text, annotations: [] }],
          },
        ]
      : reply.toolCalls.map((call, index) => ({
          type: "function_call",
          id: `fc_${responseId}_${index}`,
          call_id: call.id,
          name: call.name,
          arguments: call.argumentsJson,
          status: "completed",
        }));
  const completionCharacters =
    reply.kind === "text"
      ? reply.text.length
      : reply.toolCalls.reduce((sum, call) => sum + call.name.length + call.argumentsJson.length, 0);
  // A scripted finish_reason other than "stop" is a response the endpoint ended early, in Responses' words.
  const cut =
    reply.kind === "text" && reply.finishReason !== undefined && reply.finishReason !== "stop"
      ? {
          reason:
            reply.finishReason === "length" ? ("max_output_tokens" as const) : ("content_filter" as const),
        }
      : undefined;
  const inputTokens = estimateTokens(details.promptCharacters);
  const outputTokens = estimateTokens(completionCharacters);
  return {
    id: responseId,
    object: "response",
    created_at: details.createdSeconds,
    status: cut ? "incomplete" : "completed",
    model: details.model,
    output,
    output_text: reply.kind === "text" ? reply.text : "",
    error: null,
    incomplete_details: cut ?? null,
    instructions: null,
    metadata: null,
    parallel_tool_calls: true,
    temperature: null,
    tool_choice: "auto",
    tools: [],
    top_p: null,
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + outputTokens,
    },
  };
}
