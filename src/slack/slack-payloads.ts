import { z } from "zod";
import { TollgateError } from "../errors/index.js";

const slackUserSchema = z.looseObject({ id: z.string().min(1).max(64) });

export const blockActionsSchema = z.looseObject({
  type: z.literal("block_actions"),
  user: slackUserSchema,
  trigger_id: z.string().optional(),
  container: z.looseObject({ channel_id: z.string().optional() }).optional(),
  channel: z.looseObject({ id: z.string() }).optional(),
  actions: z.array(z.looseObject({ action_id: z.string(), value: z.string().optional() })),
});

const viewStateValueSchema = z.looseObject({
  type: z.string().optional(),
  value: z.string().nullable().optional(),
  selected_option: z.looseObject({ value: z.string().optional() }).nullable().optional(),
});

export const viewSubmissionSchema = z.looseObject({
  type: z.literal("view_submission"),
  user: slackUserSchema,
  view: z.looseObject({
    callback_id: z.string().optional(),
    private_metadata: z.string().optional(),
    state: z
      .looseObject({ values: z.record(z.string(), z.record(z.string(), viewStateValueSchema)) })
      .prefault({ values: {} }),
  }),
});

export type TBlockActions = z.infer<typeof blockActionsSchema>;
export type TViewSubmission = z.infer<typeof viewSubmissionSchema>;

/** Slack's body is `payload=<JSON>`, form-encoded. */
export function payloadOf(rawBody: Buffer): unknown {
  const payload = new URLSearchParams(rawBody.toString("utf8")).get("payload");
  if (payload === null) throw badRequest("The body has no payload field.");
  try {
    // A `__proto__` key would reach objects copied from the payload as their prototype: dropped.
    return JSON.parse(payload, (key, value: unknown) => (key === "__proto__" ? undefined : value));
  } catch {
    throw badRequest("The payload is not JSON.");
  }
}

export function parsed<TSchema extends z.ZodType>(schema: TSchema, payload: unknown): z.output<TSchema> {
  const result = schema.safeParse(payload);
  if (!result.success)
    throw badRequest(`The payload is not one Slack sends: ${result.error.issues[0]?.message}.`);
  return result.data;
}

export function badRequest(message: string): TollgateError {
  return new TollgateError("TG_BAD_REQUEST", message);
}
