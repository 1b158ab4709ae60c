import { z } from "zod";

/**
 * Approval job payload version 1, frozen (never edit): it carried the approval's ids and tool name, all of
 * which its record holds. A call parked by a version-1 build may wait for its decision longer than a rolling
 * deploy takes, so it is still read. Fixture: approval-job-v1.fixture.json beside this file.
 */
export const approvalJobV1Schema = z.object({
  schemaVersion: z.literal(1),
  approvalId: z.string(),
  runId: z.string(),
  callId: z.string(),
  toolName: z.string(),
});

export type TApprovalJobV1 = z.infer<typeof approvalJobV1Schema>;
