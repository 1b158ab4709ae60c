import { z } from "zod";

/**
 * Events of every approval under one prefix, on one Redis stream (`keys.approvalEvents()`): what the
 * console's live inbox, webhooks and auditors follow. The store writes the lifecycle ones in the same
 * Lua script that changes the record, so an event exists exactly when its change does; other features
 * append their own types (a quorum's partial vote, an expiry warning, an escalation) with the same shape.
 */
export const approvalEventTypes = [
  "approval-requested",
  /** A final approve, reject or refusal (a policy DENY of an edit). */
  "approval-decided",
  "approval-expired",
  "approval-cancelled",
  /** One vote of a quorum that does not complete it. */
  "approval-partially-decided",
  /** The approval expires soon and is still pending. */
  "approval-expiring",
  "approval-escalated",
] as const;

export type TApprovalEventType = (typeof approvalEventTypes)[number];

/** One entry's `event` field, as JSON. Loose: a type added later may carry fields of its own. */
export const approvalEventSchema = z.looseObject({
  type: z.enum(approvalEventTypes),
  approvalId: z.string(),
  runId: z.string(),
  /** The approval's tenant ("default" for a record without one): the SSE route filters on it. */
  tenant: z.string(),
  toolName: z.string(),
  /** When the change happened, epoch ms. */
  at: z.number(),
  /** The approval's status after the change. */
  status: z.string().optional(),
  approver: z.string().optional(),
  expiresAt: z.number().optional(),
  /** On `approval-decided` of a rejection with a named option: the option's name. */
  rejectOption: z.string().optional(),
});

export type TApprovalEvent = z.infer<typeof approvalEventSchema>;

/** An approval event as read back, with its stream id (the SSE `id:` and Last-Event-ID). */
export type TStoredApprovalEvent = TApprovalEvent & { id: string };
