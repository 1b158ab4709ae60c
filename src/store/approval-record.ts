import { z } from "zod";
import { EToolCallVerdict } from "../contracts/index.js";
import { userContextSchema } from "../engine/index.js";

export const approvalStatusSchema = z.enum([
  "pending",
  "approved",
  "refused",
  "rejected",
  "expired",
  "cancelled",
]);
export type TApprovalStatus = z.infer<typeof approvalStatusSchema>;

/** A parked call waiting for a human, as stored (and as `GET /v1/approvals/:id` shows it). */
export const approvalRequestSchema = z.object({
  schemaVersion: z.literal(1),
  approvalId: z.string(),
  runId: z.string(),
  threadId: z.string(),
  callId: z.string(),
  toolName: z.string(),
  /** The parsed input the model asked for. */
  input: z.unknown(),
  /** The policy's reason, for the approver. */
  reason: z.string().optional(),
  /** What the model reads on a rejection without a reason of the reviewer's own. */
  rejectionText: z.string().optional(),
  userContext: userContextSchema,
  requestedAt: z.number(),
  expiresAt: z.number(),
});

export const approvalDecisionSchema = z.object({
  decision: z.enum(["approved", "refused", "rejected", "expired", "cancelled"]),
  approver: z.string().optional(),
  comment: z.string().optional(),
  decidedAt: z.number(),
  editedInput: z.unknown().optional(),
  effectiveInput: z.unknown().optional(),
  verdictOnEdit: z.enum(EToolCallVerdict).optional(),
  rejectionText: z.string().optional(),
  reason: z.string().optional(),
});

export type TApprovalRequest = z.infer<typeof approvalRequestSchema>;
export type TApprovalDecision = z.infer<typeof approvalDecisionSchema>;

export interface IApproval extends TApprovalRequest {
  status: TApprovalStatus;
  decision?: TApprovalDecision;
}
