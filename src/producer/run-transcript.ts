import { reportedStatusOf, type TRunState } from "../engine/index.js";

/**
 * The input that ran instead of the one the model proposed (`argumentsJson`): an approver's approved edit
 * (`by`: the approver), or the input a fork's request gave the call (`by`: who forked the run).
 */
export interface ITranscriptEdit {
  kind: "approval" | "fork";
  input: unknown;
  by?: string;
}

/** A tool call the model asked for, with the arguments it proposed and, when a person changed them, the edit. */
export interface ITranscriptToolCall {
  id: string;
  name: string;
  /** The model's own arguments, as it proposed them. */
  argumentsJson: string;
  edit?: ITranscriptEdit;
}

/** One message of a transcript as a reviewer reads it: the model's own words and what the tools said. */
export type TTranscriptMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; toolCalls?: ITranscriptToolCall[] }
  | { role: "tool"; toolCallId: string; toolName?: string; content: string };

/** What a reviewer reads before deciding a parked call: the conversation that led to it. */
export interface IRunTranscript {
  runId: string;
  threadId: string;
  /** As listings show it: `waiting` while a call of the run waits for a person. */
  status: TRunState["status"];
  userId: string;
  /** The thread's earlier runs' messages, as the model read them when this run started. */
  history: TTranscriptMessage[];
  /** This run's messages so far, the step in progress (its tool calls, the results already in) last. */
  messages: TTranscriptMessage[];
}

type TResult = TRunState["toolResults"][number];
type TCall = NonNullable<TRunState["step"]>["calls"][number];

/**
 * The transcript of a run from its stored state. The step in progress is not in `messages` until it
 * settles, yet it holds what a reviewer most needs (the model's reply that asked for the parked call,
 * and the other calls of that reply), so it is appended as the model's reply with the results so far.
 * System messages are the gateway's instructions, not the conversation: they are left out. The model
 * reads a call an approver edited as if it had sent the edit; a reviewer reads what the model proposed
 * and the edit, each as what it is.
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
  // Each settled step left one assistant message with its tool calls, in step order.
  let step = -1;
  const messages = state.messages.flatMap(readable).map((message): TTranscriptMessage => {
    if (message.role !== "assistant" || (message.toolCalls?.length ?? 0) === 0) return message;
    step += 1;
    const results = state.toolResults.filter((result) => result.step === step);
    return {
      ...message,
      toolCalls: (message.toolCalls ?? []).map((call) =>
        settledCall(
          call,
          results.find((result) => result.toolCallId === call.id),
          state.request.createdBy,
        ),
      ),
    };
  });
  const current = state.step;
  if (current !== undefined && current.calls.length > 0) {
    messages.push({
      role: "assistant",
      content: current.assistantText,
      toolCalls: current.calls.map((call) => openCall(call, state.request.createdBy)),
    });
    for (const call of current.calls) {
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
    status: reportedStatusOf(state),
    userId: state.request.userContext.userId,
    history,
    messages,
  };
}

/**
 * A settled step's call: its message carries the input that ran (what the model read back), so the
 * model's own proposal comes from the call's result.
 */
function settledCall(
  call: { id: string; name: string; argumentsJson: string },
  result: TResult | undefined,
  forkedBy: string | undefined,
): ITranscriptToolCall {
  const approval = result?.approval;
  if (approval?.decision === "approved" && approval.editedInput !== undefined && result?.inputs) {
    return {
      ...call,
      argumentsJson: argumentsTextOf(result.inputs.proposed),
      edit: withBy({ kind: "approval", input: approval.editedInput }, approval.approver),
    };
  }
  if (result?.forkEdit) {
    return {
      ...call,
      argumentsJson: argumentsTextOf(result.forkEdit.originalInput),
      edit: withBy({ kind: "fork", input: result.input }, forkedBy),
    };
  }
  return call;
}

/** A call of the step in progress: its arguments are still the model's (or the fork's, marked). */
function openCall(call: TCall, forkedBy: string | undefined): ITranscriptToolCall {
  const base = { id: call.toolCallId, name: call.toolName, argumentsJson: call.argumentsJson };
  const approval = call.approval;
  if (approval?.decision === "approved" && approval.editedInput !== undefined) {
    return { ...base, edit: withBy({ kind: "approval", input: approval.editedInput }, approval.approver) };
  }
  if (call.forkEdit) {
    return {
      ...base,
      argumentsJson: argumentsTextOf(call.forkEdit.originalInput),
      edit: withBy({ kind: "fork", input: parsedOrText(call.argumentsJson) }, forkedBy),
    };
  }
  return base;
}

function withBy(edit: ITranscriptEdit, by: string | undefined): ITranscriptEdit {
  return by === undefined ? edit : { ...edit, by };
}

/** A value the model's arguments were read as, back as their text (a text that was not JSON as it was). */
function argumentsTextOf(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function parsedOrText(argumentsJson: string): unknown {
  try {
    return JSON.parse(argumentsJson);
  } catch {
    return argumentsJson;
  }
}
