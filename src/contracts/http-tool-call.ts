import { z } from "zod";
import { userContextSchema } from "./run-state.js";

/**
 * What a worker sends to a tool served over HTTP, as the JSON body of the request (signed with the
 * Standard Webhooks headers; `Idempotency-Key` and `webhook-id` are `callId`). `callId` is the same on
 * every attempt of the call: a call whose worker died mid-request is sent again with it.
 */
export const httpToolCallSchema = z.object({
  /** The input after the tool's JSON Schema: what the model sent, or what a human approved. */
  input: z.unknown(),
  callId: z.string().min(1),
  runId: z.string().min(1),
  threadId: z.string().min(1),
  userContext: userContextSchema,
});

export type THttpToolCall = z.infer<typeof httpToolCallSchema>;

/**
 * The body a tool service answers a failed call with (any non-2xx status) so that the model can recover:
 * the model reads `code: <code>, status: <status>, userMessage: <userMessage>` (and "Do not retry this
 * call." when `canRetry` is false). `status` defaults to the answer's HTTP status. Any other failed answer
 * is the generic status-500 line.
 */
export const httpToolErrorBodySchema = z.object({
  userMessage: z.string().trim().min(1),
  code: z.union([z.string(), z.number()]).optional(),
  status: z.number().int().optional(),
  canRetry: z.boolean().optional(),
});

export type THttpToolErrorBody = z.infer<typeof httpToolErrorBodySchema>;
