import { z } from "zod";
import { EToolCallVerdict } from "../contracts/index.js";

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

/**
 * The `quorum` field of the approval hash, as the vote script keeps it: each vote as the JSON string it
 * was sent as (so Lua never re-encodes an edited input), the voters of the current round, and once the
 * quorum is complete or a reject settled it, `settled` (and that reject's decision as sent).
 */
const storedQuorumSchema = z.object({
  required: z.number(),
  votes: z.union([z.array(z.string()), z.object({})]),
  earlier: z.union([z.array(z.string()), z.object({})]).optional(),
  settled: z.enum(["approved", "decision"]).optional(),
  decision: z.string().optional(),
});

export interface IQuorumState {
  required: number;
  votes: TQuorumVote[];
  earlier: TQuorumVote[];
  /** `approved`: the votes completed it; `decision`: a reject or refused edit settled it. */
  settled?: "approved" | "decision";
  /** The settling decision as JSON, for `decision`. */
  decisionJson?: string;
}

/** Lua's cjson writes an empty list as `{}`: both read as no votes. */
function votesOf(raw: string[] | object | undefined): TQuorumVote[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((vote) => quorumVoteSchema.parse(JSON.parse(vote)));
}

export function parseQuorumState(json: string): IQuorumState {
  const stored = storedQuorumSchema.parse(JSON.parse(json));
  return {
    required: stored.required,
    votes: votesOf(stored.votes),
    earlier: votesOf(stored.earlier),
    ...(stored.settled !== undefined ? { settled: stored.settled } : {}),
    ...(stored.decision !== undefined ? { decisionJson: stored.decision } : {}),
  };
}

/** What the approval shows of a quorum's state. */
export function quorumViewOf(state: IQuorumState): TApprovalQuorum {
  return {
    required: state.required,
    approvals: state.votes,
    ...(state.earlier.length > 0 ? { earlierVotes: state.earlier } : {}),
  };
}
