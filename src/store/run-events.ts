import type { TRunEvent, TRunEventInput, TRunEventType } from "../contracts/index.js";

/** Events of one run, appended to its Redis stream; SSE and `GatewayClient.events` read them. */
export type { TRunEventType };

/** An event to append (a discriminated union on `type`). */
export type IRunEventInput = TRunEventInput;

/** An event as read back, with its stream id; `TToolName` types the tool names it carries. */
export type IRunEvent<TToolName extends string = string> = TRunEvent<TToolName>;

/** The stream entry's one field: the event and when it was written. */
export function eventJson(event: TRunEventInput, at: number): string {
  return JSON.stringify({ type: event.type, data: event.data, at });
}
