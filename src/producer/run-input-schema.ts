import { z } from "zod";
import { tenantNamePattern } from "../contracts/index.js";
import { userContextSchema } from "../engine/index.js";
import { boundedJsonRecord } from "./json-depth.js";

/** Ids that travel into BullMQ job ids and Redis keys: no ':' and not all digits. */
const idSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.-]+$/, "only letters, digits, '_', '.', '-'")
  .refine((value) => !/^\d+$/.test(value), "must not be all digits");

/**
 * The user context a caller sends: the stored shape, but closed (a misspelt `userID` is refused, not
 * dropped) and with its free `attributes` bounded in depth.
 */
export const userContextInputSchema = z.strictObject({
  ...userContextSchema.shape,
  attributes: boundedJsonRecord.optional(),
});

/**
 * A run request as any caller sends it (library or HTTP): checked before anything is queued. The size of
 * `input` is checked against the gateway's maxInputChars separately (413, not 422).
 */
export const runInputSchema = z.strictObject({
  input: z.string().min(1, "must not be empty"),
  threadId: idSchema.optional(),
  userContext: userContextInputSchema,
  tools: z.array(z.string().min(1)).max(200).optional(),
  additionalTools: z.array(z.string().min(1)).max(200).optional(),
  maxSteps: z.number().int().min(1).max(100).optional(),
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60 * 60 * 1000)
    .optional(),
  maxTotalTokens: z.number().int().min(1).optional(),
  maxToolCalls: z.number().int().min(1).max(10_000).optional(),
  metadata: boundedJsonRecord.optional(),
  idempotencyKey: z.string().min(1).max(256).optional(),
  instructions: z.string().max(100_000).optional(),
  tenant: z.string().regex(tenantNamePattern, "1 to 64 letters, digits, '_', '.', '-'").optional(),
  createdBy: z.string().min(1).max(256).optional(),
  /** One of the gateway's named models (`default` when absent); an unknown name is refused at enqueue. */
  model: z.string().min(1).max(64).optional(),
  output: z
    .strictObject({
      schema: boundedJsonRecord.describe(
        'JSON Schema (2020-12 dialect) of the answer; its root must be `type: "object"`. Compiled at enqueue: one that does not compile is 422.',
      ),
      name: z.string().optional().describe("What the model is told the answer is; default `output`."),
    })
    .optional()
    .describe("Ask for a structured answer: the response's `output` is the answer, parsed and validated."),
});

export type TRunInput = z.infer<typeof runInputSchema>;

/** The approver's roles (API and custom), as approver rules match them. */
const approverRolesSchema = z.array(z.string().min(1).max(64)).max(100).optional();

/**
 * The `inputHash` a decision may send back: the approval's, as the screen that showed its input read it.
 * Another value is refused with TG_APPROVAL_STALE (the approver saw another input).
 */
export const inputHashSchema = z
  .string()
  .regex(/^[0-9a-f]{64}$/, "the approval's inputHash: 64 lower-case hex digits (SHA-256)");

export const approveInputSchema = z.strictObject({
  input: z.unknown().optional(),
  approver: z.string().min(1).max(256),
  approverRoles: approverRolesSchema,
  comment: z.string().max(10_000).optional(),
  inputHash: inputHashSchema.optional(),
});

export const rejectInputSchema = z.strictObject({
  reason: z.string().max(10_000).optional(),
  /** One of the approval's `rejectOptions`, by name: the model reads its promptFill, then the reason. */
  option: z.string().min(1).max(64).optional(),
  approver: z.string().min(1).max(256),
  approverRoles: approverRolesSchema,
  inputHash: inputHashSchema.optional(),
});
