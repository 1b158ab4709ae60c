import { z } from "zod";
import { EToolCallVerdict } from "./verdict.js";

/** One approver's vote of a quorum: who, when, what they said, and the input they edited (if they did). */
export const quorumVoteSchema = z.object({
  approver: z.string(),
  decidedAt: z.number(),
  comment: z.string().optional(),
  /** An edit restarts the count: the votes after it approve this input. */
  editedInput: z.unknown().optional(),
  /** The policy's verdict on the edit, kept for the decision the quorum ends with. */
  verdictOnEdit: z.enum(EToolCallVerdict).optional(),
});

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

export type TQuorumVote = z.infer<typeof quorumVoteSchema>;
export type TApprovalQuorum = z.infer<typeof approvalQuorumSchema>;
