import type { IncomingMessage, ServerResponse } from "node:http";
import { type IChatCompletionsRequestBody, parseRequestBody } from "./request-body.js";
import { toChatCompletionChunks } from "./scripted-chunks.js";
import { SCRIPTED_MODEL_NAME, toChatCompletion } from "./scripted-completion.js";
import type { IScriptedModelState } from "./scripted-model-state.js";
import { handleScriptedRequest } from "./scripted-route.js";
import { type IScriptedWire, nowSeconds } from "./scripted-wire.js";

/** Chat Completions as the scripted model speaks it: `chat.completion`, or its chunks ending `[DONE]`. */
const chatCompletionsWire: IScriptedWire<IChatCompletionsRequestBody> = {
  conversationParam: "messages",
  parse: parseRequestBody,
  answer: (reply, body, replyNumber) =>
    toChatCompletion({
      reply,
      completionId: `chatcmpl-scripted-${replyNumber}`,
      model: body.model ?? SCRIPTED_MODEL_NAME,
      createdSeconds: nowSeconds(),
      promptCharacters: body.promptCharacters,
    }),
  streamEvents: (reply, body, replyNumber, chunkCharacters) =>
    toChatCompletionChunks({
      reply,
      completionId: `chatcmpl-scripted-${replyNumber}`,
      model: body.model ?? SCRIPTED_MODEL_NAME,
      createdSeconds: nowSeconds(),
      promptCharacters: body.promptCharacters,
      chunkCharacters,
      includeUsage: body.includeUsage,
    }).map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`),
  doneEvent: "data: [DONE]\n\n",
};

/** POST /v1/chat/completions: record the body, then answer as the script says. */
export function handleChatCompletion(
  request: IncomingMessage,
  response: ServerResponse,
  state: IScriptedModelState,
): Promise<void> {
  return handleScriptedRequest(request, response, state, chatCompletionsWire);
}
