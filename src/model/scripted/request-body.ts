import { z } from "zod";
import { describeFieldIssues, toFieldIssues } from "../../errors/index.js";
import type { IConversationMessage } from "./conversation.js";

/**
 * The minimal check of a chat completions request: what the scripted model reads must be there.
 * Unknown fields pass (clients send many), and are recorded as sent.
 */
const requestBodySchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(z.looseObject({ role: z.string() })),
  tools: z.array(z.unknown()).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
});

export interface IScriptedRequestBody {
  model: string | undefined;
  messages: IConversationMessage[];
  toolsOffered: boolean;
  stream: boolean;
  /** `stream_options.include_usage`: a streamed reply ends with a chunk carrying the usage. */
  includeUsage: boolean;
  /** Characters of the messages as sent (not as re-serialized after parsing), for the usage. */
  promptCharacters: number;
}

export type TParsedRequestBody =
  | { kind: "valid"; body: IScriptedRequestBody }
  | { kind: "invalid"; message: string; param: string | undefined };

export function parseRequestBody(json: unknown): TParsedRequestBody {
  const parsed = requestBodySchema.safeParse(json);
  if (!parsed.success) {
    const issues = toFieldIssues(parsed.error);
    return {
      kind: "invalid",
      message: `Invalid request body: ${describeFieldIssues(issues)}`,
      param: issues[0]?.path || undefined,
    };
  }
  return {
    kind: "valid",
    body: {
      model: parsed.data.model,
      messages: parsed.data.messages,
      toolsOffered: (parsed.data.tools ?? []).length > 0,
      stream: parsed.data.stream === true,
      includeUsage: parsed.data.stream_options?.include_usage === true,
      promptCharacters: JSON.stringify((json as { messages: unknown }).messages).length,
    },
  };
}
