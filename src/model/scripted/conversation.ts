/**
 * Reading a Chat Completions conversation as a client sent it. The scripted model only trusts
 * `role` to be a string (the request body check guarantees it); everything else is looked at warily.
 */
export interface IConversationMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown;
  /** Whatever else the client sent (`tool_call_id`, `name`, ...), kept as sent. */
  [field: string]: unknown;
}

/** A message's text: the string itself, or its text parts joined; "" for anything else. */
export function messageText(message: IConversationMessage): string {
  const content = message.content;
  if (typeof content === "string") {
    return content;
  }
  if (!Array.isArray(content)) {
    return "";
  }
  return content
    .map((part: unknown) =>
      typeof part === "object" && part !== null && "text" in part && typeof part.text === "string"
        ? part.text
        : "",
    )
    .join("");
}

/** Index of the newest user message, -1 when there is none. */
export function newestUserMessageIndex(messages: readonly IConversationMessage[]): number {
  return messages.findLastIndex((message) => message.role === "user");
}

/** Assistant messages after `index`: how many replies the model already gave to that message. */
export function countAssistantMessagesAfter(
  messages: readonly IConversationMessage[],
  index: number,
): number {
  return messages.slice(index + 1).filter((message) => message.role === "assistant").length;
}

/**
 * The texts of the tool results of the previous step: the tool messages after the newest assistant
 * message that called tools. Empty when no assistant called tools.
 */
export function previousStepToolTexts(messages: readonly IConversationMessage[]): string[] {
  const lastCallingIndex = messages.findLastIndex(
    (message) =>
      message.role === "assistant" && Array.isArray(message.tool_calls) && message.tool_calls.length > 0,
  );
  if (lastCallingIndex === -1) {
    return [];
  }
  return messages
    .slice(lastCallingIndex + 1)
    .filter((message) => message.role === "tool")
    .map(messageText);
}
