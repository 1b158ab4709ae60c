import type { TApprovalDecisionRecord, TQuorumVote } from "../contracts/index.js";
import { type IQuorumState, parseQuorumState } from "./approval-quorum.js";
import type { IKeys } from "./keys.js";
import type { ITollgateRedis } from "./redis-client.js";

/** What one vote asks of the script: count an approval, start a new round with an edit, or settle. */
export type TVoteRequest =
  | { kind: "vote" | "edit"; vote: TQuorumVote; required: number }
  | { kind: "settle"; vote: TQuorumVote; required: number; decision: TApprovalDecisionRecord };

export type TVoteResult =
  | { outcome: "partial" | "complete" | "settled" | "already-voted"; state: IQuorumState }
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
    );
    if (stateJson === undefined) return { outcome: "refused", status: result };
    return {
      outcome: result as "partial" | "complete" | "settled" | "already-voted",
      state: parseQuorumState(stateJson),
    };
  }
}
