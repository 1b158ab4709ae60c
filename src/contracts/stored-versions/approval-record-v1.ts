import { z } from "zod";

/**
 * Approval record version 1, frozen: copied literally from the last build that wrote it (commit 538f954's
 * parent). Never derive it from today's record and never edit it: a call parked by that build may still be
 * waiting. Version 1 kept the schema's parsed input and no tool selection; `readApprovalRequest` upgrades it
 * to the current version. Fixture: approval-record-v1.fixture.json beside this file.
 */
export const approvalRecordV1Schema = z.object({
  schemaVersion: z.literal(1),
  approvalId: z.string(),
  runId: z.string(),
  threadId: z.string(),
  callId: z.string(),
  toolName: z.string(),
  input: z.unknown(),
  reason: z.string().optional(),
  rejectionText: z.string().optional(),
  userContext: z.object({
    userId: z.string().min(1).max(256),
    profile: z.string().min(1).max(128).optional(),
    roles: z.array(z.string().max(128)).max(100).optional(),
    attributes: z.record(z.string(), z.unknown()).optional(),
  }),
  requestedAt: z.number(),
  expiresAt: z.number(),
});

export type TApprovalRecordV1 = z.infer<typeof approvalRecordV1Schema>;
