import type { IncomingMessage, ServerResponse } from "node:http";
import type { Response } from "openai/resources/responses/responses";
import { parseResponsesBody } from "./responses-request.js";
import type { TScriptedReply } from "./script-interpreter.js";
import { SCRIPTED_MODEL_NAME } from "./scripted-completion.js";
import type { IScriptedModelState } from "./scripted-model-state.js";
import type { IScriptedRequestBody } from "./scripted-request.js";
import { toScriptedResponse } from "./scripted-response.js";
import { toResponseStreamEvents } from "./scripted-response-events.js";
import { handleScriptedRequest } from "./scripted-route.js";
import { type IScriptedWire, nowSeconds } from "./scripted-wire.js";

function responseOf(reply: TScriptedReply, body: IScriptedRequestBody, replyNumber: number): Response {
  return toScriptedResponse({
    reply,
    responseId: `resp_scripted_${replyNumber}`,
    model: body.model ?? SCRIPTED_MODEL_NAME,
    createdSeconds: nowSeconds(),
    promptCharacters: body.promptCharacters,
  });
}

/** The Responses API as the scripted model speaks it: a `response`, or its stream events (no `[DONE]`). */
const responsesWire: IScriptedWire<IScriptedRequestBody> = {
  conversationParam: "input",
  parse: parseResponsesBody,
  answer: responseOf,
  streamEvents: (reply, body, replyNumber, chunkCharacters) =>
    toResponseStreamEvents(responseOf(reply, body, replyNumber), chunkCharacters).map(
      (event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`,
    ),
};

/**
 * POST /v1/responses: the Responses API on the same scripts as Chat Completions (a script's replies,
 * errors, delays, tool calls, cut and stalled streams), recorded in the same list.
 */
export function handleResponses(
  request: IncomingMessage,
  response: ServerResponse,
  state: IScriptedModelState,
): Promise<void> {
  return handleScriptedRequest(request, response, state, responsesWire);
}
