import type { IncomingMessage, ServerResponse } from "node:http";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { readBody, sendJson, waitWhileClientConnected } from "./http-io.js";
import { openAIErrorBody } from "./openai-error-body.js";
import type { IPromptScript } from "./prompt-scripts.js";
import { type RecordedRequests, toRecordedRequest } from "./recorded-requests.js";
import { type IScriptedRequestBody, parseRequestBody } from "./request-body.js";
import { decideScriptedReply, type TScriptReplyDecision } from "./script-interpreter.js";
import { toChatCompletionChunks } from "./scripted-chunks.js";
import { SCRIPTED_MODEL_NAME, toChatCompletion } from "./scripted-completion.js";
import { type IStreamingOptions, streamChunks } from "./stream-chunks.js";

/** Bodies over this are refused with 413: a conversation this large is a bug in the caller. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** The mutable state of one scripted model server. */
export interface IScriptedModelState {
  recorded: RecordedRequests;
  /** How often each one-shot error was served, by the interpreter's `servedErrorKey`. */
  servedErrorCounts: Map<string, number>;
  /** For `chatcmpl-scripted-<n>` ids. */
  completionCount: number;
  /** Scripts for messages that carry none, chosen by the message's text. */
  promptScripts: readonly IPromptScript[];
  /** How a streamed reply is cut into chunks and paced. */
  streaming: IStreamingOptions;
}

/** POST /v1/chat/completions: record the body, then answer as the script says. */
export async function handleChatCompletion(
  request: IncomingMessage,
  response: ServerResponse,
  state: IScriptedModelState,
): Promise<void> {
  const read = await readBody(request, MAX_BODY_BYTES);
  if (read.kind === "too-large") {
    sendJson(response, 413, openAIErrorBody(413, `Request body over ${MAX_BODY_BYTES} bytes.`));
    return;
  }
  const json = parseJson(read.text);
  state.recorded.add(toRecordedRequest(read.text, json));
  const parsed = parseRequestBody(json);
  if (parsed.kind === "invalid") {
    sendJson(response, 400, openAIErrorBody(400, parsed.message, { param: parsed.param }));
    return;
  }
  const decision = decideScriptedReply(parsed.body, state.servedErrorCounts, state.promptScripts);
  if (decision.kind === "invalid-script") {
    const message = `Invalid script in the newest user message: ${decision.message}`;
    sendJson(response, 400, openAIErrorBody(400, message, { param: "messages" }));
    return;
  }
  if (decision.kind === "error") {
    // Counted when chosen, not when sent: a retry arriving during this error's delay moves on.
    const key = decision.servedErrorKey;
    state.servedErrorCounts.set(key, (state.servedErrorCounts.get(key) ?? 0) + 1);
    if (decision.cut !== undefined && parsed.body.stream) {
      const chunks = chunksOf(decision.cut.reply, parsed.body, state);
      if (await waitWhileClientConnected(response, decision.delayMs)) {
        await streamChunks(response, chunks.slice(0, decision.cut.afterChunks), {
          chunkDelayMs: decision.cut.reply.chunkDelayMs ?? state.streaming.chunkDelayMs,
          ending: decision.cut.ending,
        });
      }
      return;
    }
    if (await waitWhileClientConnected(response, decision.delayMs)) {
      const headers: Record<string, string> =
        decision.retryAfterMs === undefined ? {} : { "retry-after-ms": String(decision.retryAfterMs) };
      sendJson(response, decision.status, openAIErrorBody(decision.status, decision.message), headers);
    }
    return;
  }
  if (parsed.body.stream) {
    const chunks = chunksOf(decision, parsed.body, state);
    if (await waitWhileClientConnected(response, decision.delayMs)) {
      await streamChunks(response, chunks, {
        chunkDelayMs: decision.chunkDelayMs ?? state.streaming.chunkDelayMs,
        ending: "done",
      });
    }
    return;
  }
  state.completionCount += 1;
  const completion = toChatCompletion({
    reply: decision.reply,
    completionId: `chatcmpl-scripted-${state.completionCount}`,
    model: parsed.body.model ?? SCRIPTED_MODEL_NAME,
    createdSeconds: Math.floor(Date.now() / 1000),
    promptCharacters: parsed.body.promptCharacters,
  });
  if (await waitWhileClientConnected(response, decision.delayMs)) {
    sendJson(response, 200, completion);
  }
}

function chunksOf(
  decision: TScriptReplyDecision,
  body: IScriptedRequestBody,
  state: IScriptedModelState,
): ChatCompletionChunk[] {
  state.completionCount += 1;
  return toChatCompletionChunks({
    reply: decision.reply,
    completionId: `chatcmpl-scripted-${state.completionCount}`,
    model: body.model ?? SCRIPTED_MODEL_NAME,
    createdSeconds: Math.floor(Date.now() / 1000),
    promptCharacters: body.promptCharacters,
    chunkCharacters: state.streaming.chunkCharacters,
    includeUsage: body.includeUsage,
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
