import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { TChatMessage } from "../contracts/index.js";

/** The stored transcript in the Chat Completions wire format. */
export function toModelMessages(messages: readonly TChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((message): ChatCompletionMessageParam => {
    switch (message.role) {
      case "system":
      case "user":
        return { role: message.role, content: message.content };
      case "tool":
        return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
      default:
        return message.toolCalls && message.toolCalls.length > 0
          ? {
              role: "assistant",
              content: message.content,
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: "function" as const,
                function: { name: call.name, arguments: call.argumentsJson },
              })),
            }
          : { role: "assistant", content: message.content ?? "" };
    }
  });
}
