import { z } from "zod";
import { quorumVoteSchema, type TApprovalQuorum, type TQuorumVote } from "../contracts/index.js";

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
