import { createHash } from "node:crypto";
import {
  countAssistantMessagesAfter,
  type IConversationMessage,
  messageText,
  newestUserMessageIndex,
  previousStepToolTexts,
} from "./conversation.js";
import { type IPromptScript, scriptForPrompt } from "./prompt-scripts.js";
import {
  isStatusEntry,
  parseScript,
  type TScriptEntry,
  type TScriptReplyEntry,
  type TScriptStatusEntry,
} from "./script-schema.js";

/**
 * The scripted model's decisions (DESIGN §7), with no I/O: which reply or HTTP error a request gets.
 *
 * Positions. The model's k-th reply after the newest user message (k = the assistant messages after
 * it) is the reply at *position* k. Positions count only reply entries (`calls`, `text`); a `status`
 * entry is not a reply but a one-shot error served *before* the reply that follows it. So
 * `[{"status":429}, {"text":"a"}, {"status":500}, {"status":503}, {"text":"b"}]` has replies "a"
 * (position 0) and "b" (position 1): the first request at position 0 gets 429, the next "a"; at
 * position 1 the requests get 500, then 503, then "b". Status entries after the last reply come
 * before the script's end. A client's retry repeats the same conversation, so it moves on to the next
 * error or the reply: that is what lets the SDK's retries succeed.
 */

/** A script laid out by position. */
export interface IScriptPlan {
  /** replies[k] is the reply at position k. */
  replies: TScriptReplyEntry[];
  /** errorsBefore[k]: the errors served, in order, before reply k; the last list is before the end. */
  errorsBefore: IPendingError[][];
}

export interface IPendingError {
  entry: TScriptStatusEntry;
  /** Index in the script as written, part of the key that tracks how often it was served. */
  entryIndex: number;
}

export interface IScriptedToolCall {
  id: string;
  name: string;
  argumentsJson: string;
}

export type TScriptedReply =
  | { kind: "text"; text: string; finishReason?: "stop" | "length" | "content_filter" }
  | { kind: "tool-calls"; toolCalls: IScriptedToolCall[] };

export type TScriptedDecision =
  | {
      kind: "reply";
      reply: TScriptedReply;
      delayMs: number;
      /** Between the chunks of a streamed reply; undefined: the server's default. */
      chunkDelayMs?: number;
    }
  | {
      kind: "error";
      status: number;
      message: string;
      retryAfterMs: number | undefined;
      delayMs: number;
      /**
       * A streamed request gets 200 and this many chunks of `reply` (the reply that follows), then the
       * connection is cut, or (`stall`) left open with nothing more sent; a request that does not stream
       * gets the status as usual.
       */
      cut?: { afterChunks: number; reply: TScriptReplyDecision; ending: "cut" | "stall" };
      /** The caller counts the error as served under this key (see `decideScriptedReply`). */
      servedErrorKey: string;
    }
  | { kind: "invalid-script"; message: string };

export type TScriptReplyDecision = Extract<TScriptedDecision, { kind: "reply" }>;

export interface IScriptedRequest {
  messages: readonly IConversationMessage[];
  /** False when the request has no `tools` or an empty list. */
  toolsOffered: boolean;
}

export const NO_TOOLS_PREFIX = "[no-tools]";
export const SCRIPT_END_PREFIX = "[script-end]";
export const ECHO_PREFIX = "echo: ";

export function planScript(entries: readonly TScriptEntry[]): IScriptPlan {
  const replies: TScriptReplyEntry[] = [];
  const errorsBefore: IPendingError[][] = [[]];
  entries.forEach((entry, entryIndex) => {
    if (isStatusEntry(entry)) {
      errorsBefore[replies.length]?.push({ entry, entryIndex });
    } else {
      replies.push(entry);
      errorsBefore.push([]);
    }
  });
  return { replies, errorsBefore };
}

/**
 * The decision for one request. `servedErrorCounts` says how often each error was already served;
 * when the decision is an error, the caller must add one under its `servedErrorKey`. The key hashes
 * the conversation up to the newest user message with the position and the entry index, so the same
 * conversation sent again (a retry, or the same script sent by another run) sees the errors as served.
 */
export function decideScriptedReply(
  request: IScriptedRequest,
  servedErrorCounts: ReadonlyMap<string, number>,
  promptScripts: readonly IPromptScript[] = [],
): TScriptedDecision {
  const userIndex = newestUserMessageIndex(request.messages);
  const userMessage = request.messages[userIndex];
  const userText = userMessage === undefined ? "" : messageText(userMessage);
  const inlineScript = parseScript(userText);
  const promptScript = inlineScript.kind === "none" ? scriptForPrompt(promptScripts, userText) : undefined;
  const script =
    promptScript !== undefined ? { kind: "script" as const, entries: promptScript } : inlineScript;
  if (script.kind === "none") {
    return { kind: "reply", reply: { kind: "text", text: `${ECHO_PREFIX}${userText}` }, delayMs: 0 };
  }
  if (script.kind === "invalid") {
    return { kind: "invalid-script", message: script.message };
  }
  const plan = planScript(script.entries);
  const position = countAssistantMessagesAfter(request.messages, userIndex);
  const conversationKey = hashConversation(request.messages.slice(0, userIndex + 1));
  const pendingError = (plan.errorsBefore[position] ?? []).find(
    ({ entry, entryIndex }) =>
      (servedErrorCounts.get(servedErrorKeyOf(conversationKey, position, entryIndex)) ?? 0) <
      timesToServe(entry),
  );
  if (pendingError !== undefined) {
    const { entry, entryIndex } = pendingError;
    const following = entry.afterChunks === undefined ? undefined : replyAt(plan, position, request);
    return {
      kind: "error",
      status: entry.status,
      message: entry.message ?? `Scripted error ${entry.status} (script entry ${entryIndex}).`,
      retryAfterMs: entry.retryAfterMs,
      delayMs: entry.delayMs ?? 0,
      servedErrorKey: servedErrorKeyOf(conversationKey, position, entryIndex),
      ...(entry.afterChunks !== undefined && following?.kind === "reply"
        ? {
            cut: {
              afterChunks: entry.afterChunks,
              reply: following,
              ending: entry.stall === true ? ("stall" as const) : ("cut" as const),
            },
          }
        : {}),
    };
  }
  return replyAt(plan, position, request);
}

function replyAt(plan: IScriptPlan, position: number, request: IScriptedRequest): TScriptReplyDecision {
  const entry = plan.replies[position];
  // Offered no tools: the run's last step, whatever the script says next; its delay still applies
  // so that a test can cancel during that step.
  if (!request.toolsOffered) {
    return {
      kind: "reply",
      reply: { kind: "text", text: withToolTexts(NO_TOOLS_PREFIX, request.messages) },
      delayMs: entry?.delayMs ?? 0,
      ...chunkDelayOf(entry),
    };
  }
  if (entry === undefined) {
    return {
      kind: "reply",
      reply: { kind: "text", text: withToolTexts(SCRIPT_END_PREFIX, request.messages) },
      delayMs: 0,
    };
  }
  if ("text" in entry) {
    const reply: TScriptedReply = { kind: "text", text: entry.text };
    if (entry.finishReason !== undefined) reply.finishReason = entry.finishReason;
    return { kind: "reply", reply, delayMs: entry.delayMs ?? 0, ...chunkDelayOf(entry) };
  }
  const toolCalls = entry.calls.map((call, callIndex) => ({
    // Unique within the conversation: one reply per position.
    id: `call_${position}_${callIndex}`,
    name: call.name,
    argumentsJson: call.arguments ?? JSON.stringify(call.input ?? {}),
  }));
  return {
    kind: "reply",
    reply: { kind: "tool-calls", toolCalls },
    delayMs: entry.delayMs ?? 0,
    ...chunkDelayOf(entry),
  };
}

function chunkDelayOf(entry: TScriptReplyEntry | undefined): { chunkDelayMs?: number } {
  return entry?.chunkDelayMs === undefined ? {} : { chunkDelayMs: entry.chunkDelayMs };
}

/** "[no-tools] a | b": the prefix, then the previous step's tool results; the bare prefix when none. */
function withToolTexts(prefix: string, messages: readonly IConversationMessage[]): string {
  const texts = previousStepToolTexts(messages);
  return texts.length === 0 ? prefix : `${prefix} ${texts.join(" | ")}`;
}

function timesToServe(entry: TScriptStatusEntry): number {
  return entry.repeat === true ? Number.POSITIVE_INFINITY : (entry.times ?? 1);
}

function servedErrorKeyOf(conversationKey: string, position: number, entryIndex: number): string {
  return `${conversationKey}:${position}:${entryIndex}`;
}

function hashConversation(messages: readonly IConversationMessage[]): string {
  return createHash("sha256").update(JSON.stringify(messages)).digest("hex");
}
