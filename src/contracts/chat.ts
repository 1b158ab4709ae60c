/**
 * The conversation as Tollgate stores it: a small, SDK-neutral shape, so that stored runs and threads
 * do not depend on one model SDK's types. The run worker converts it to the Chat Completions wire format
 * just before a model call (src/workers/to-model-messages.ts).
 */
export interface IChatToolCall {
  /** The model's id for the call. */
  id: string;
  name: string;
  /** The arguments as JSON text: the model's own, or the input a human edited (what actually ran). */
  argumentsJson: string;
}

export type TChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; toolCalls?: IChatToolCall[] }
  | { role: "tool"; toolCallId: string; content: string };
