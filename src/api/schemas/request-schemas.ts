import { z } from "zod";
import { approveInputSchema, rejectInputSchema, runInputSchema } from "../../producer/run-input-schema.js";

/*
 * The HTTP request schemas, derived from the producer's so that the API accepts exactly what
 * GatewayClient accepts, minus what HTTP carries elsewhere (the idempotency key is a header, the
 * approver is the token's subject and cannot be sent).
 */

/** `POST /v1/runs` and `POST /v1/ask`. On ask, `timeoutMs` is also how long the request waits. */
export const runBodySchema = runInputSchema.omit({ idempotencyKey: true });

/** Headers are loose: every other header must survive validation (fastify replaces them with the result). */
export const idempotencyHeadersSchema = z.looseObject({
  "idempotency-key": z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe("A retried request with the same key returns the same run."),
});

const idSchema = z.string().min(1).max(256);

export const runParamsSchema = z.object({ runId: idSchema });

export const approvalParamsSchema = z.object({ approvalId: idSchema });

/** A Redis stream entry id, as sent in the SSE `id:` field. */
const streamIdSchema = z
  .string()
  .regex(/^\d+(-\d+)?$/, "must be an event id such as 1700000000000-0")
  .describe("Resume after this event id.");

export const runEventsQuerySchema = z.strictObject({ after: streamIdSchema.optional() });

export const runEventsHeadersSchema = z.looseObject({ "last-event-id": streamIdSchema.optional() });

export const approvalsQuerySchema = z.strictObject({
  runId: idSchema.optional(),
  tool: idSchema.optional(),
  userId: idSchema.optional(),
});

export const approveBodySchema = approveInputSchema.omit({ approver: true });

export const rejectBodySchema = rejectInputSchema.omit({ approver: true });
