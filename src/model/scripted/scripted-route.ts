import type { IncomingMessage, ServerResponse } from "node:http";
import { readBody, sendJson, waitWhileClientConnected } from "./http-io.js";
import { openAIErrorBody } from "./openai-error-body.js";
import { toRecordedRequest } from "./recorded-requests.js";
import { decideScriptedReply, type TScriptedReply } from "./script-interpreter.js";
import type { IScriptedModelState } from "./scripted-model-state.js";
import type { IScriptedRequestBody } from "./scripted-request.js";
import type { IScriptedWire } from "./scripted-wire.js";
import { streamChunks } from "./stream-chunks.js";

/** Bodies over this are refused with 413: a conversation this large is a bug in the caller. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * One model request, in the API `wire` speaks: record the body, then answer as the script says (a reply,
 * whole or streamed; an HTTP error; a stream cut or stalled after some chunks), after the script's delay.
 */
export async function handleScriptedRequest<TBody extends IScriptedRequestBody>(
  request: IncomingMessage,
  response: ServerResponse,
  state: IScriptedModelState,
  wire: IScriptedWire<TBody>,
): Promise<void> {
  const read = await readBody(request, MAX_BODY_BYTES);
  if (read.kind === "too-large") {
    sendJson(response, 413, openAIErrorBody(413, `Request body over ${MAX_BODY_BYTES} bytes.`));
    return;
  }
  const json = parseJson(read.text);
  state.recorded.add(toRecordedRequest(read.text, json));
  const parsed = wire.parse(json);
  if (parsed.kind === "invalid") {
    sendJson(response, 400, openAIErrorBody(400, parsed.message, { param: parsed.param }));
    return;
  }
  const body = parsed.body;
  const decision = decideScriptedReply(body, state.servedErrorCounts, state.promptScripts);
  if (decision.kind === "invalid-script") {
    const message = `Invalid script in the newest user message: ${decision.message}`;
    sendJson(response, 400, openAIErrorBody(400, message, { param: wire.conversationParam }));
    return;
  }
  const eventsOf = (reply: TScriptedReply): string[] => {
    state.completionCount += 1;
    return wire.streamEvents(reply, body, state.completionCount, state.streaming.chunkCharacters);
  };
  if (decision.kind === "error") {
    // Counted when chosen, not when sent: a retry arriving during this error's delay moves on.
    const key = decision.servedErrorKey;
    state.servedErrorCounts.set(key, (state.servedErrorCounts.get(key) ?? 0) + 1);
    if (decision.cut !== undefined && body.stream) {
      const events = eventsOf(decision.cut.reply.reply);
      if (await waitWhileClientConnected(response, decision.delayMs)) {
        await streamChunks(response, events.slice(0, decision.cut.afterChunks), {
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
  if (body.stream) {
    const events = eventsOf(decision.reply);
    if (await waitWhileClientConnected(response, decision.delayMs)) {
      await streamChunks(response, events, {
        chunkDelayMs: decision.chunkDelayMs ?? state.streaming.chunkDelayMs,
        ending: "done",
        ...(wire.doneEvent !== undefined ? { doneEvent: wire.doneEvent } : {}),
      });
    }
    return;
  }
  state.completionCount += 1;
  const answer = wire.answer(decision.reply, body, state.completionCount);
  if (await waitWhileClientConnected(response, decision.delayMs)) {
    sendJson(response, 200, answer);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
