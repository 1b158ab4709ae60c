import { z } from "zod";
import {
  type IScriptedRequestBody,
  parseScriptedRequest,
  type TParsedScriptedRequest,
} from "./scripted-request.js";

/** The minimal check of a chat completions request: what the scripted model reads must be there. */
const requestBodySchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(z.looseObject({ role: z.string() })),
  tools: z.array(z.unknown()).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
});

export interface IChatCompletionsRequestBody extends IScriptedRequestBody {
  /** `stream_options.include_usage`: a streamed reply ends with a chunk carrying the usage. */
  includeUsage: boolean;
}

export function parseRequestBody(json: unknown): TParsedScriptedRequest<IChatCompletionsRequestBody> {
  return parseScriptedRequest(requestBodySchema, json, (data) => ({
    model: data.model,
    messages: data.messages,
    toolsOffered: (data.tools ?? []).length > 0,
    stream: data.stream === true,
    includeUsage: data.stream_options?.include_usage === true,
    promptCharacters: JSON.stringify((json as { messages: unknown }).messages).length,
  }));
}
