import { z } from "zod";
import { quorumVoteSchema } from "./approval-decision.js";

/**
 * Progress of a quorum ("four eyes") on an approval, as `GET /v1/approvals/:id` shows it: how many
 * distinct approvers must approve, the approvals counted so far, and the votes an edit set aside.
 */
export const approvalQuorumSchema = z.object({
  required: z.number().int().min(1),
  /** The votes that count, oldest first: the first one carries the edit they approve, if any. */
  approvals: z.array(quorumVoteSchema),
  /** Votes for an earlier input, set aside when a later approver edited it. */
  earlierVotes: z.array(quorumVoteSchema).optional(),
});

export type TApprovalQuorum = z.infer<typeof approvalQuorumSchema>;
