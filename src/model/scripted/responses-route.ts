import type { IncomingMessage, ServerResponse } from "node:http";
import type { IScriptedModelState } from "./chat-completions-route.js";
import { readBody, sendJson, waitWhileClientConnected } from "./http-io.js";
import { openAIErrorBody } from "./openai-error-body.js";
import { toRecordedRequest } from "./recorded-requests.js";
import { parseResponsesBody } from "./responses-request.js";
import { decideScriptedReply } from "./script-interpreter.js";
import { SCRIPTED_MODEL_NAME } from "./scripted-completion.js";
import { toScriptedResponse } from "./scripted-response.js";
import { streamResponseEvents, toResponseStreamEvents } from "./scripted-response-events.js";

/** Bodies over this are refused with 413, as on the Chat Completions route. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * POST /v1/responses: the Responses API on the same scripts as Chat Completions (a script's replies,
 * errors, delays and tool calls), recorded in the same list; `stream: true` answers Responses stream events.
 */
export async function handleResponses(
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
  const parsed = parseResponsesBody(json);
  if (parsed.kind === "invalid") {
    sendJson(response, 400, openAIErrorBody(400, parsed.message, { param: parsed.param }));
    return;
  }
  const decision = decideScriptedReply(parsed.body, state.servedErrorCounts, state.promptScripts);
  if (decision.kind === "invalid-script") {
    const message = `Invalid script in the newest user message: ${decision.message}`;
    sendJson(response, 400, openAIErrorBody(400, message, { param: "input" }));
    return;
  }
  if (decision.kind === "error") {
    const key = decision.servedErrorKey;
    state.servedErrorCounts.set(key, (state.servedErrorCounts.get(key) ?? 0) + 1);
    if (await waitWhileClientConnected(response, decision.delayMs)) {
      const headers: Record<string, string> =
        decision.retryAfterMs === undefined ? {} : { "retry-after-ms": String(decision.retryAfterMs) };
      sendJson(response, decision.status, openAIErrorBody(decision.status, decision.message), headers);
    }
    return;
  }
  state.completionCount += 1;
  const body = toScriptedResponse({
    reply: decision.reply,
    responseId: `resp_scripted_${state.completionCount}`,
    model: parsed.body.model ?? SCRIPTED_MODEL_NAME,
    createdSeconds: Math.floor(Date.now() / 1000),
    promptCharacters: parsed.body.promptCharacters,
  });
  if (!(await waitWhileClientConnected(response, decision.delayMs))) return;
  if (parsed.body.stream) {
    const events = toResponseStreamEvents(body, state.streaming.chunkCharacters);
    await streamResponseEvents(response, events, decision.chunkDelayMs ?? state.streaming.chunkDelayMs);
    return;
  }
  sendJson(response, 200, body);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
