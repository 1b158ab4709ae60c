import { z } from "zod";

/**
 * The three inputs of an approved call side by side (on the approval and on the call's result): what the model proposed, what the approver approved
 * (their edit, else the proposal; while a quorum is pending, the edit its counted votes approve), and
 * what the tool's `execute` received once the call ran (after the tool's schema).
 */
export const approvalInputsSchema = z.object({
  proposed: z.unknown(),
  approved: z.unknown().optional(),
  executed: z.unknown().optional(),
});

export type TApprovalInputs = z.infer<typeof approvalInputsSchema>;
