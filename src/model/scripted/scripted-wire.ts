import type { TScriptedReply } from "./script-interpreter.js";
import type { IScriptedRequestBody, TParsedScriptedRequest } from "./scripted-request.js";

/**
 * What differs between the APIs the scripted model speaks (Chat Completions, Responses): how a request
 * is read and how a reply is written, whole or streamed. The rest (recording, the script's decisions,
 * errors, delays, cut and stalled streams) is one route for both (scripted-route.ts).
 */
export interface IScriptedWire<TBody extends IScriptedRequestBody> {
  /** The request field holding the conversation: a 400 about an invalid script names it. */
  conversationParam: string;
  parse(json: unknown): TParsedScriptedRequest<TBody>;
  /** The reply as one JSON answer; `replyNumber` makes its id (1, 2, … per server). */
  answer(reply: TScriptedReply, body: TBody, replyNumber: number): unknown;
  /** The reply as the server-sent events that stream it, each written out (`data: …\n\n`). */
  streamEvents(reply: TScriptedReply, body: TBody, replyNumber: number, chunkCharacters: number): string[];
  /** What a complete stream ends with after its events, when the API sends something. */
  doneEvent?: string;
}

/** Seconds since the epoch, for the replies' `created` fields. */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
