import type { ChatCompletion } from "openai/resources/chat/completions";
import type { ITokenUsage } from "../contracts/index.js";
import { TollgateError } from "../errors/index.js";

/** One tool call the model asked for, as the model sent it: the arguments are not parsed here. */
export interface IModelToolCall {
  /** The model's id for the call; the tool message that answers it must carry it. */
  id: string;
  name: string;
  /** The raw arguments text; the model may send invalid JSON, which the registry turns into a result. */
  argumentsJson: string;
}

/** One reply of the model. */
export interface IModelReply {
  /** The assistant's text; null when it only called tools. */
  text: string | null;
  toolCalls: IModelToolCall[];
  usage: ITokenUsage;
  /** "stop", "tool_calls", "length", ... as the endpoint said; null when it said nothing. */
  finishReason: string | null;
  /** The model the endpoint says answered (it may differ from the one asked, e.g. a dated snapshot). */
  model: string;
  /** From the start of `complete` to its end, retries and backoff included. */
  durationMs: number;
}

/** Token usage as the endpoint reported it; 0 for what it did not report. */
export function toTokenUsage(usage: ChatCompletion["usage"]): ITokenUsage {
  return {
    promptTokens: usage?.prompt_tokens ?? 0,
    completionTokens: usage?.completion_tokens ?? 0,
    totalTokens: usage?.total_tokens ?? 0,
  };
}

/** The first choice of a completion as an IModelReply. Throws TG_MODEL_FAILED when there is none. */
export function toModelReply(
  completion: ChatCompletion,
  details: { requestedModel: string; durationMs: number },
): IModelReply {
  const choice = completion.choices[0];
  if (choice === undefined) {
    throw new TollgateError("TG_MODEL_FAILED", "The model endpoint answered with no choices.", {
      model: details.requestedModel,
    });
  }
  // Custom (free-text) tool calls are never offered by Tollgate, so only function calls are read.
  const toolCalls = (choice.message.tool_calls ?? []).flatMap((toolCall) =>
    toolCall.type === "function"
      ? [{ id: toolCall.id, name: toolCall.function.name, argumentsJson: toolCall.function.arguments }]
      : [],
  );
  return {
    text: choice.message.content ?? null,
    toolCalls,
    usage: toTokenUsage(completion.usage),
    finishReason: choice.finish_reason ?? null,
    model: completion.model || details.requestedModel,
    durationMs: details.durationMs,
  };
}
