import { z } from "zod";
import { approvalListStatuses, runStateSchema } from "../../contracts/index.js";
import { maxTokenLength } from "../../links/index.js";
import {
  approveInputSchema,
  rejectInputSchema,
  runInputSchema,
  userContextInputSchema,
} from "../../producer/run-input-schema.js";
import { refineScheduleTiming, scheduleTimingShape } from "../../producer/schedule-input-schema.js";

/*
 * The HTTP request schemas, derived from the producer's so that the API accepts exactly what
 * GatewayClient accepts, minus what HTTP carries elsewhere (the idempotency key is a header, the
 * approver is the token's subject and cannot be sent).
 */

/**
 * `POST /v1/runs`. Without `userContext` the run acts for the token's subject: a service that acts for
 * itself should not have to invent a user id.
 */
/** A listing's page size, sent as a query string: 1 to `max`, `defaultSize` when absent. */
function pageLimitSchema(items: string, max: number, defaultSize: number) {
  return z
    .string()
    .regex(/^\d+$/, "must be an integer")
    .transform(Number)
    .pipe(z.number().int().min(1).max(max))
    .optional()
    .describe(`${items} per page, 1 to ${max}; default ${defaultSize}.`);
}

export const runBodySchema = runInputSchema.omit({ idempotencyKey: true, createdBy: true }).extend({
  tenant: runInputSchema.shape.tenant.describe(
    "The run's tenant: the token's. Only an operator (or a token of tenant '*') may name another.",
  ),
  userContext: userContextInputSchema
    .optional()
    .describe("Who the run acts for. Omitted: `{ userId: <the token's subject> }`."),
});

/**
 * `POST /v1/ask`: a run request whose `timeoutMs` is also how long the request waits, so it is bounded
 * by the server's `askMaxWaitMs`. The one schema both validates and documents the bound.
 */
export function askBodySchema(askMaxWaitMs: number) {
  return runBodySchema.extend({
    timeoutMs: z
      .number()
      .int()
      .min(1)
      .max(askMaxWaitMs, `must be at most ${askMaxWaitMs} on this server`)
      .optional()
      .describe(`How long the request waits and the run's deadline; at most and by default ${askMaxWaitMs}.`),
  });
}

/** Headers are loose: every other header must survive validation (fastify replaces them with the result). */
export const idempotencyHeadersSchema = z.looseObject({
  "idempotency-key": z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe("A retried request with the same key returns the same run."),
});

/** The longest id a path, query or header may carry; fastify's router is set to the same. */
export const maxIdLength = 256;

const idSchema = z.string().min(1).max(maxIdLength);

export const runParamsSchema = z.object({ runId: idSchema });

export const approvalParamsSchema = z.object({ approvalId: idSchema });

export const threadParamsSchema = z.object({ threadId: idSchema });

export const deleteThreadQuerySchema = z.strictObject({
  force: z
    .enum(["true", "false"])
    .optional()
    .describe("true: cancel the thread's queued or running runs first instead of refusing with 409."),
  tenant: runInputSchema.shape.tenant.describe(
    "The tenant whose thread this is (thread ids are scoped per tenant): the token's. Only an operator " +
      "(or a token of tenant '*') may name another; it deletes the default tenant's thread without one.",
  ),
});

/** A Redis stream entry id, as sent in the SSE `id:` field. */
const streamIdSchema = z
  .string()
  .regex(/^\d+(-\d+)?$/, "must be an event id such as 1700000000000-0")
  .describe("Resume after this event id.");

export const runEventsQuerySchema = z.strictObject({
  after: streamIdSchema.optional(),
  format: z
    .enum(["events", "ui-message-stream"])
    .optional()
    .describe(
      "`events` (the default): each run event as it is stored. `ui-message-stream`: the AI SDK's UI message stream (protocol v1), for a useChat front end.",
    ),
});

export const runEventsHeadersSchema = z.looseObject({ "last-event-id": streamIdSchema.optional() });

/** An approval event id: a stream id, or with partitions one per partition's log, comma-separated. */
const approvalEventIdSchema = z
  .string()
  .max(2048)
  .regex(
    /^\d+(-\d+)?(,\d+(-\d+)?)*$/,
    "must be an event id such as 1700000000000-0 (with partitions, one per partition, comma-separated)",
  )
  .describe("Resume after this event id.");

export const approvalEventsQuerySchema = z.strictObject({
  tenant: idSchema
    .optional()
    .describe("Only this tenant's events; a token limited to one tenant may name only its own."),
  after: approvalEventIdSchema
    .optional()
    .describe("Resume after this event id; `0`: every event still kept."),
});

export const approvalEventsHeadersSchema = z.looseObject({
  "last-event-id": approvalEventIdSchema.optional(),
});

/** An instant: ISO 8601 date-time (or date), or epoch milliseconds. */
export const instantSchema = z
  .string()
  .trim()
  .transform((text, context) => {
    const milliseconds = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
    if (Number.isFinite(milliseconds)) return milliseconds;
    context.addIssue({ code: "custom", message: "must be an ISO 8601 date-time or epoch milliseconds" });
    return z.NEVER;
  });

export const approvalsQuerySchema = z.strictObject({
  tenant: idSchema
    .optional()
    .describe("Only this tenant's approvals; a token limited to one tenant may name only its own."),
  status: z
    .enum(approvalListStatuses)
    .optional()
    .describe("pending (the default, soonest expiry first), decided (any final status) or one final status."),
  runId: idSchema.optional(),
  tool: idSchema.optional(),
  userId: idSchema.optional(),
  userIdContains: idSchema
    .optional()
    .describe('Approvals whose user id contains this text, in any case ("iv" finds u-ivan).'),
  approver: idSchema.optional().describe("Who decided (decided approvals)."),
  since: instantSchema
    .optional()
    .describe("Inclusive: requestedAt for pending approvals, decidedAt for decided ones (ISO or epoch ms)."),
  until: instantSchema.optional().describe("Inclusive; as since."),
  limit: pageLimitSchema("Approvals", 1000, 100),
  cursor: z.string().min(1).max(512).optional().describe("The previous page's nextCursor."),
});

/** `GET /v1/runs`: every filter exact; runs newest first. */
export const runsQuerySchema = z.strictObject({
  tenant: idSchema
    .optional()
    .describe("Only this tenant's runs; a token limited to one tenant may name only its own."),
  status: runStateSchema.shape.status
    .optional()
    .describe("Exactly this status; `waiting`: runs with a call waiting for a person (an approval)."),
  userId: z.string().min(1).max(256).optional(),
  threadId: idSchema.optional(),
  tool: idSchema.optional().describe("Runs whose model called this tool (refused calls included)."),
  createdBy: z.string().min(1).max(256).optional().describe("The subject that created the run."),
  scheduleId: idSchema.optional().describe("Runs created by this schedule's ticks."),
  since: instantSchema.optional().describe("Runs created at or after (ISO or epoch ms)."),
  until: instantSchema.optional().describe("Runs created at or before (ISO or epoch ms)."),
  limit: pageLimitSchema("Runs", 500, 50),
  cursor: z.string().min(1).max(512).optional().describe("The previous page's nextCursor."),
});

/** Whether a replay may run again the calls of tools not declared read-only that the run executed. */
const repeatEffectsSchema = z
  .boolean()
  .optional()
  .describe(
    "Run again the calls the run executed of tools not declared readOnly (from the fork's call on, for a fork); without it such a replay is refused with 409 TG_RERUN_REPEATS_EFFECTS naming them.",
  );

/** `POST /v1/runs/{runId}/rerun`: what may change; the creator is the token's subject. */
export const rerunBodySchema = z.strictObject({
  input: runInputSchema.shape.input.optional().describe("Another user message; omitted: the run's own."),
  userContext: userContextInputSchema.optional().describe("Another user to run as; omitted: the run's own."),
  model: runInputSchema.shape.model.describe(
    "Another of the gateway's named models; omitted: the run's own.",
  ),
  repeatEffects: repeatEffectsSchema,
});

/**
 * `POST /v1/runs/{runId}/resume`: nothing to choose (the resume continues the run as it stopped, for its
 * user under the token's pins); the creator is the token's subject.
 */
export const resumeBodySchema = z.strictObject({});

/** `POST /v1/runs/{runId}/fork`: the call to start from and its new input; the creator is the token's subject. */
export const forkBodySchema = z.strictObject({
  fromCallId: idSchema.describe("The run's tool call to run again (a `toolResults[].callId`)."),
  input: z
    .unknown()
    .optional()
    .describe(
      "The call's input in the fork, whole (checked by the tool's schema); omitted: the input it had.",
    ),
  repeatEffects: repeatEffectsSchema,
});

/**
 * `POST /v1/schedules`: when it ticks and the run request each tick enqueues, as `POST /v1/runs` takes it
 * (its tenant, creator and user context are settled the same way, from the token).
 */
export const scheduleBodySchema = z
  .strictObject({
    ...scheduleTimingShape,
    request: runBodySchema.describe("The run each tick enqueues: the body of POST /v1/runs."),
  })
  .superRefine(refineScheduleTiming);

export const scheduleParamsSchema = z.object({ scheduleId: idSchema });

export const schedulesQuerySchema = z.strictObject({
  tenant: idSchema
    .optional()
    .describe("Only this tenant's schedules; a token limited to one tenant may name only its own."),
  limit: pageLimitSchema("Schedules", 500, 50),
  cursor: z.string().min(1).max(512).optional().describe("The previous page's nextCursor."),
});

/** The approver and their roles come from the token, never from the body. */
export const approveBodySchema = approveInputSchema.omit({ approver: true, approverRoles: true });

export const rejectBodySchema = rejectInputSchema.omit({ approver: true, approverRoles: true });

const daySchema = z.iso.date().describe("A UTC day, YYYY-MM-DD.");

/** The longest range `GET /v1/usage` reads at once, in days (its day buckets are kept about as long). */
export const maxUsageDays = 400;

/** `GET /v1/usage`: a range of UTC days, both included (default: today), for one tenant or all. */
export const usageQuerySchema = z
  .strictObject({
    tenant: z.string().min(1).max(128).optional(),
    from: daySchema.optional(),
    to: daySchema.optional(),
  })
  .refine((query) => query.from === undefined || query.to === undefined || query.from <= query.to, {
    message: "from must not be after to",
    path: ["from"],
  })
  .refine(
    (query) =>
      query.from === undefined ||
      query.to === undefined ||
      Date.parse(query.to) - Date.parse(query.from) < maxUsageDays * 24 * 60 * 60 * 1000,
    { message: `the range is at most ${maxUsageDays} days`, path: ["to"] },
  );

/** `POST /v1/approval-links/inspect`: the token from the link's fragment is the only credential. */
export const approvalLinkBodySchema = z.strictObject({
  token: z
    .string()
    .min(1)
    .max(maxTokenLength)
    .describe("The token after `#/link/` in a link a notification carried."),
});

/** `POST /v1/approval-links/redeem`. */
export const redeemApprovalLinkBodySchema = approvalLinkBodySchema.extend({
  comment: approveInputSchema.shape.comment.describe(
    "Kept with the decision; for a reject link, the reason the model reads.",
  ),
});
