import { z } from "zod";
import { approvalDecisionSchema } from "./approval-decision.js";
import { approvalInputsSchema } from "./approval-inputs.js";
import { approvalQuorumSchema } from "./approval-quorum.js";
import { inputChangeSchema } from "./input-diff.js";
import { rejectOptionSchema } from "./reject-options.js";
import { approvalDecisions } from "./result.js";
import { userContextSchema } from "./run-state.js";
import { approvalRecordV1Schema } from "./stored-versions/approval-record-v1.js";

export const approvalStatusSchema = z.enum(["pending", ...approvalDecisions]);
export type TApprovalStatus = z.infer<typeof approvalStatusSchema>;

export const approvalRecordVersion = 2;

/**
 * A parked call waiting for a human, as stored (and as `GET /v1/approvals/:id` shows it). Version 2 keeps
 * the model's arguments as sent (`input`) and what the tool job needs, so that an approved call's job is
 * built from this record alone. Records of version 1 are read through `storedApprovalRequestSchema`.
 */
export const approvalRequestSchema = z.object({
  schemaVersion: z.literal(approvalRecordVersion),
  approvalId: z.string(),
  runId: z.string(),
  threadId: z.string(),
  callId: z.string(),
  toolName: z.string(),
  /** The input the model asked for, as sent (before the tool's schema): what the approver sees and edits. */
  input: z.unknown(),
  /** The policy's reason, for the approver. */
  reason: z.string().optional(),
  /** What the model reads on a rejection without a reason of the reviewer's own. */
  rejectionText: z.string().optional(),
  userContext: userContextSchema,
  /** The run's tool selection, so the approved call's job builds the same registry (version 2). */
  tools: z.array(z.string()).optional(),
  additionalTools: z.array(z.string()).optional(),
  /** The run's pinned MCP tool list (TRunState.toolListHash): an edit is checked against the schema the model saw. */
  toolListHash: z.string().optional(),
  requestedAt: z.number(),
  expiresAt: z.number(),
  /** The run's tenant: listings and decisions are limited to it. Absent: "default". */
  tenant: z.string().optional(),
  /** Who created the run that parked this call. */
  createdBy: z.string().optional(),
  /**
   * SHA-256 (hex) of the canonical JSON of `input`, written when the call parks: a decision that sends
   * another hash was made on a screen that showed another input, and is refused (TG_APPROVAL_STALE).
   * Absent on records written before it existed (the view computes it).
   */
  inputHash: z.string().optional(),
  /** The named ways to reject this call (the tool's, else the gateway's), as offered when it parked. */
  rejectOptions: z.array(rejectOptionSchema).optional(),
});

/** How the approved call ended, written on the record when its tool job finished. */
export const approvedCallOutcomeSchema = z.object({
  /** The tool returned a result (not an error, a timeout or a cancellation). */
  ok: z.boolean(),
  /** The tool's error status, when it gave one. */
  status: z.number().optional(),
  /** The tool's error code, else the kind of failure (error, timeout, invalid_input, cancelled, ...). */
  code: z.string().optional(),
  finishedAt: z.number(),
  /** The input `execute` received, after the tool's schema parsed the approved one (as JSON). */
  executedInput: z.unknown().optional(),
});

export type TApprovalRequest = z.infer<typeof approvalRequestSchema>;

/**
 * A stored record of this version or the one before (its frozen copy), upgraded on read: a version-1 record
 * kept the schema's parsed input, which is all there is of the model's arguments, and no tool selection
 * (the approved call's job then uses the gateway's whole registry, as version-1 builds did).
 */
export const storedApprovalRequestSchema = z
  .discriminatedUnion("schemaVersion", [approvalRequestSchema, approvalRecordV1Schema])
  .transform((record): TApprovalRequest => {
    if (record.schemaVersion === approvalRecordVersion) return record;
    return { ...record, schemaVersion: approvalRecordVersion };
  });
export type TApprovedCallOutcome = z.infer<typeof approvedCallOutcomeSchema>;

/** An approval as read (`GET /v1/approvals/:id`, listings, the export). */
export const approvalViewSchema = approvalRequestSchema.extend({
  /**
   * SHA-256 (hex) of the canonical JSON of the input a decision acts on now: `input`, or while a quorum is
   * pending the edit its counted votes approve. A decision may send it back (`inputHash`): another value
   * is refused with TG_APPROVAL_STALE. The store always sets it (optional for views built elsewhere).
   */
  inputHash: z.string().optional(),
  /** Proposed, approved and executed input, side by side (the store always sets it). */
  inputs: approvalInputsSchema.optional(),
  status: approvalStatusSchema,
  decision: approvalDecisionSchema.optional(),
  /** What the edit changed, original input → edited input (derived when read, not stored). */
  diff: z.array(inputChangeSchema).optional(),
  /** How the approved call ended, once its tool job finished. */
  outcome: approvedCallOutcomeSchema.optional(),
  /** A quorum's progress, when the tool's approver rules ask for more than one approver. */
  quorum: approvalQuorumSchema.optional(),
});

export type IApproval = z.infer<typeof approvalViewSchema>;
