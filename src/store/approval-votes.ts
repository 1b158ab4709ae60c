import type { TApprovalDecisionRecord, TQuorumVote } from "../contracts/index.js";
import { type IQuorumState, parseQuorumState } from "./approval-quorum.js";
import { inputHashOf } from "./input-hash.js";
import type { IKeys } from "./keys.js";
import type { ITollgateRedis } from "./redis-client.js";

/** The input a vote was decided on, checked in the vote's own atomic step. */
interface IVoteInput {
  /** The `inputHash` the approver's screen showed: another than the round's refuses the vote (stale). */
  sentInputHash?: string | undefined;
  /** The approval's `inputHash` as the caller read it (for a quorum state kept before rounds had one). */
  readInputHash: string;
}

/** What one vote asks of the script: count an approval, start a new round with an edit, or settle. */
export type TVoteRequest = IVoteInput &
  (
    | { kind: "vote" | "edit"; vote: TQuorumVote; required: number }
    | { kind: "settle"; vote: TQuorumVote; required: number; decision: TApprovalDecisionRecord }
  );

export type TVoteResult =
  | { outcome: "partial" | "complete" | "settled" | "already-voted"; state: IQuorumState }
  /** The round acts on another input than the one the vote was decided on: `inputHash` is the round's. */
  | { outcome: "stale"; inputHash: string }
  /** The approval's status when it is no longer pending, `expired` or `missing`. */
  | { outcome: "refused"; status: string };

/** A quorum's votes on approval records (the `quorum` field), each vote one atomic script. */
export class ApprovalVotes {
  constructor(
    private readonly redis: ITollgateRedis,
    private readonly keys: IKeys,
    private readonly options: { approvalEventsMaxLength: number; now: () => number },
  ) {}

  async vote(approvalId: string, request: TVoteRequest): Promise<TVoteResult> {
    const [result, stateJson] = await this.redis.tgVoteApproval(
      this.keys.approval(approvalId),
      this.keys.approvalEvents(),
      request.vote.approver,
      JSON.stringify(request.vote),
      request.kind,
      String(request.required),
      String(this.options.now()),
      request.kind === "settle" ? JSON.stringify(request.decision) : "",
      String(this.options.approvalEventsMaxLength),
      request.sentInputHash ?? "",
      request.readInputHash,
      request.kind === "edit" ? inputHashOf(request.vote.editedInput) : "",
    );
    if (result === "stale" && stateJson !== undefined) return { outcome: "stale", inputHash: stateJson };
    if (stateJson === undefined) return { outcome: "refused", status: result };
    return {
      outcome: result as "partial" | "complete" | "settled" | "already-voted",
      state: parseQuorumState(stateJson),
    };
  }
}
