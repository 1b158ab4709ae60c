import type { z } from "zod";
import { describeFieldIssues, toFieldIssues } from "../../errors/index.js";
import type { IConversationMessage } from "./conversation.js";

/** What the scripted model reads of a request, whichever API it came through. */
export interface IScriptedRequestBody {
  model: string | undefined;
  /** The conversation, as Chat Completions messages (the script interpreter's language). */
  messages: IConversationMessage[];
  toolsOffered: boolean;
  stream: boolean;
  /** Characters of the conversation as sent (not as re-serialized after parsing), for the usage. */
  promptCharacters: number;
}

export type TParsedScriptedRequest<TBody extends IScriptedRequestBody> =
  | { kind: "valid"; body: TBody }
  | { kind: "invalid"; message: string; param: string | undefined };

/**
 * The body checked by `schema` and read by `toBody`, or why it is invalid (a 400 naming the first field).
 * The schemas are loose: unknown fields pass (clients send many), and are recorded as sent.
 */
export function parseScriptedRequest<TSchema extends z.ZodType, TBody extends IScriptedRequestBody>(
  schema: TSchema,
  json: unknown,
  toBody: (data: z.infer<TSchema>) => TBody,
): TParsedScriptedRequest<TBody> {
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issues = toFieldIssues(parsed.error);
    return {
      kind: "invalid",
      message: `Invalid request body: ${describeFieldIssues(issues)}`,
      param: issues[0]?.path || undefined,
    };
  }
  return { kind: "valid", body: toBody(parsed.data) };
}
