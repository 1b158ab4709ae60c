import type { TRunState } from "../engine/index.js";

/** One message of a transcript as a reviewer reads it: the model's own words and what the tools said. */
export type TTranscriptMessage =
  | { role: "user"; content: string }
  | {
      role: "assistant";
      content: string | null;
      toolCalls?: Array<{ id: string; name: string; argumentsJson: string }>;
    }
  | { role: "tool"; toolCallId: string; toolName?: string; content: string };

/** What a reviewer reads before deciding a parked call: the conversation that led to it. */
export interface IRunTranscript {
  runId: string;
  threadId: string;
  status: TRunState["status"];
  userId: string;
  /** The thread's earlier runs' messages, as the model read them when this run started. */
  history: TTranscriptMessage[];
  /** This run's messages so far, the step in progress (its tool calls, the results already in) last. */
  messages: TTranscriptMessage[];
}

/**
 * The transcript of a run from its stored state. The step in progress is not in `messages` until it
 * settles, yet it holds what a reviewer most needs (the model's reply that asked for the parked call,
 * and the other calls of that reply), so it is appended as the model's reply with the results so far.
 * System messages are the gateway's instructions, not the conversation: they are left out.
 */
export function transcriptOf(state: TRunState): IRunTranscript {
  const toolNames = new Map<string, string>();
  const readable = (message: TRunState["messages"][number]): TTranscriptMessage[] => {
    if (message.role === "system") return [];
    if (message.role === "assistant") {
      for (const call of message.toolCalls ?? []) toolNames.set(call.id, call.name);
      return [message];
    }
    if (message.role === "tool") {
      const toolName = toolNames.get(message.toolCallId);
      return [{ ...message, ...(toolName !== undefined ? { toolName } : {}) }];
    }
    return [message];
  };
  const history = state.history.flatMap(readable);
  const messages = state.messages.flatMap(readable);
  const step = state.step;
  if (step !== undefined && step.calls.length > 0) {
    messages.push({
      role: "assistant",
      content: step.assistantText,
      toolCalls: step.calls.map((call) => ({
        id: call.toolCallId,
        name: call.toolName,
        argumentsJson: call.argumentsJson,
      })),
    });
    for (const call of step.calls) {
      if (call.result === undefined) continue;
      messages.push({
        role: "tool",
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        content: call.result.text,
      });
    }
  }
  return {
    runId: state.runId,
    threadId: state.threadId,
    status: state.status,
    userId: state.request.userContext.userId,
    history,
    messages,
  };
}
