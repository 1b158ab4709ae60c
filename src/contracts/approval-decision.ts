import { z } from "zod";
import { chosenRejectOptionSchema } from "./reject-options.js";
import { approvalDecisions } from "./result.js";
import { EToolCallVerdict } from "./verdict.js";

const decisionFields = {
  decision: z.enum(approvalDecisions),
  /** Who decided: the API token's subject; absent on expiry and cancellation. */
  approver: z.string().optional(),
  /** What the reviewer wrote: a note on an approval, the reason of a reject (the model reads it). */
  comment: z.string().optional(),
  decidedAt: z.number(),
  /** The approver's edit, as sent: the tool's schema parses it once, in the tool job. */
  editedInput: z.unknown().optional(),
  /** The policy's verdict on the edit (design decision D109: an edited input is decided again). */
  verdictOnEdit: z.enum(EToolCallVerdict).optional(),
  /** The policy's text for the model on an edit it refused, else the parked call's rejectionText. */
  rejectionText: z.string().optional(),
  /** The policy's reason for refusing an edit (the reviewer's words are `comment`). */
  reason: z.string().optional(),
  /** The named reject option the approver chose: the model read its promptFill (then `comment`, if any). */
  rejectOption: chosenRejectOptionSchema.optional(),
};

/**
 * The decision on an approval, as the record keeps it: the one definition (the approval job's report,
 * the run's result and a quorum's vote take their fields from here).
 */
export const approvalDecisionSchema = z.object(decisionFields);

/** What the approval job returns to its run: the decision with the approval's id (validated when read). */
export const approvalReportSchema = approvalDecisionSchema.extend({ approvalId: z.string() });

/** A decision kept on a call's result and in the run's state (the fields the response shows). */
export const approvalOnResultSchema = z.object({
  approvalId: z.string(),
  decision: decisionFields.decision,
  approver: decisionFields.approver,
  comment: decisionFields.comment,
  decidedAt: decisionFields.decidedAt,
  editedInput: decisionFields.editedInput,
  verdictOnEdit: decisionFields.verdictOnEdit,
  /** The name of the reject option the approver chose (the model read its promptFill). */
  rejectOption: z.string().optional(),
});

/** One approver's vote of a quorum: who, when, what they said, and the input they edited (if they did). */
export const quorumVoteSchema = z.object({
  approver: z.string(),
  decidedAt: decisionFields.decidedAt,
  comment: decisionFields.comment,
  /** An edit restarts the count: the votes after it approve this input. */
  editedInput: decisionFields.editedInput,
  /** The policy's verdict on the edit, kept for the decision the quorum ends with. */
  verdictOnEdit: decisionFields.verdictOnEdit,
});

export type TApprovalDecisionRecord = z.infer<typeof approvalDecisionSchema>;
export type TApprovalReport = z.infer<typeof approvalReportSchema>;
export type TApprovalOnResult = z.infer<typeof approvalOnResultSchema>;
export type TQuorumVote = z.infer<typeof quorumVoteSchema>;
