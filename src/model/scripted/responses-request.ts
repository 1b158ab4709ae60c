import { z } from "zod";
import type { IConversationMessage } from "./conversation.js";
import {
  type IScriptedRequestBody,
  parseScriptedRequest,
  type TParsedScriptedRequest,
} from "./scripted-request.js";

/**
 * The minimal check of a Responses API request (`POST /v1/responses`), and its input read as the Chat
 * Completions conversation the script interpreter knows: an assistant's function calls join the
 * assistant's turn, a function call's output is a tool message. Unknown fields pass and are recorded.
 */
const responsesBodySchema = z.looseObject({
  model: z.string().optional(),
  input: z.union([z.string(), z.array(z.looseObject({}))]),
  instructions: z.string().nullish(),
  tools: z.array(z.unknown()).nullish(),
  stream: z.boolean().nullish(),
});

export function parseResponsesBody(json: unknown): TParsedScriptedRequest<IScriptedRequestBody> {
  return parseScriptedRequest(responsesBodySchema, json, (data) => {
    const { input, instructions } = data;
    const system: IConversationMessage[] = instructions ? [{ role: "system", content: instructions }] : [];
    return {
      model: data.model,
      messages: [
        ...system,
        ...(typeof input === "string" ? [{ role: "user", content: input }] : toConversation(input)),
      ],
      toolsOffered: (data.tools ?? []).length > 0,
      stream: data.stream === true,
      promptCharacters: JSON.stringify(input).length,
    };
  });
}

/** Input items as conversation messages (see the schema's comment). */
export function toConversation(items: ReadonlyArray<Record<string, unknown>>): IConversationMessage[] {
  const messages: IConversationMessage[] = [];
  for (const item of items) {
    const type = item.type ?? "message";
    if (type === "message" && typeof item.role === "string") {
      messages.push({ role: item.role, content: item.content });
    } else if (type === "function_call") {
      const call = {
        id: item.call_id,
        type: "function",
        function: { name: item.name, arguments: item.arguments },
      };
      const last = messages.at(-1);
      // The calls of one reply follow its text (if any): they are that assistant turn's.
      if (last?.role === "assistant")
        last.tool_calls = [...(Array.isArray(last.tool_calls) ? last.tool_calls : []), call];
      else messages.push({ role: "assistant", content: null, tool_calls: [call] });
    } else if (type === "function_call_output") {
      messages.push({ role: "tool", tool_call_id: item.call_id, content: item.output });
    }
  }
  return messages;
}
