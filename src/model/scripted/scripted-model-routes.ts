import type { IncomingMessage, ServerResponse } from "node:http";
import { handleChatCompletion } from "./chat-completions-route.js";
import { sendJson } from "./http-io.js";
import { openAIErrorBody } from "./openai-error-body.js";
import { handleResponses } from "./responses-route.js";
import { SCRIPTED_MODEL_NAME } from "./scripted-completion.js";
import type { IScriptedModelState } from "./scripted-model-state.js";

/** The scripted model's router: the OpenAI routes it serves and the test-only `/__…` routes. */
export async function routeScriptedModelRequest(
  request: IncomingMessage,
  response: ServerResponse,
  state: IScriptedModelState,
): Promise<void> {
  const path = new URL(request.url ?? "/", "http://scripted.invalid").pathname;
  const route = `${request.method ?? "GET"} ${path}`;
  switch (route) {
    case "POST /v1/chat/completions":
      return handleChatCompletion(request, response, state);
    case "POST /v1/responses":
      return handleResponses(request, response, state);
    case "GET /v1/models":
      return sendJson(response, 200, {
        object: "list",
        data: [{ id: SCRIPTED_MODEL_NAME, object: "model", created: 0, owned_by: "tollgate" }],
      });
    case "GET /__requests":
      return sendJson(response, 200, state.recorded.list());
    case "DELETE /__requests":
      state.recorded.clear();
      return sendNoContent(response);
    case "DELETE /__served-errors":
      state.servedErrorCounts.clear();
      return sendNoContent(response);
    default:
      return sendJson(
        response,
        404,
        openAIErrorBody(404, `Unknown route ${route} on the scripted model.`, { code: "unknown_url" }),
      );
  }
}

function sendNoContent(response: ServerResponse): void {
  response.writeHead(204);
  response.end();
}
