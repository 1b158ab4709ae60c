import type { IApproval, TQuorumVote } from "../../../src/contracts/index.js";
import {
  type IApprovalEffectHandlers,
  type IApprovalEvents,
  type IQuorumProgress,
  interpretApprovalCommand,
  type TApprovalCommand,
  type TApprovalCommandOutcome,
  type TApprovalEffect,
  type TVoteAnswer,
  type TVoteCast,
} from "../../../src/engine/index.js";

type TAddToolJob = Extract<TApprovalEffect, { type: "add-tool-job" }>;
type TCountDecision = Extract<TApprovalEffect, { type: "count-decision" }>;

/**
 * The approval machine's in-memory driver: the engine's one interpreter (`interpretApprovalCommand`, the
 * loop the runtime runs on Redis) with handlers that keep the approval, its quorum, the tool jobs, the
 * approval job and the metrics in memory. The commit and the vote behave as their Lua scripts do (a
 * compare-and-set on the status; one vote at a time), so concurrent commands race as they do on Redis.
 */
export class ApprovalDriver {
  now: number;
  private stored: IApproval;
  private quorum: (IQuorumProgress & { voters: string[]; inputHash: string }) | undefined;
  /** Tool jobs as added, one per call id (a second add of the same id is a no-op, as in BullMQ). */
  readonly toolJobs = new Map<string, TAddToolJob>();
  /** Tool jobs that ran and ended (an `onlyIfMissing` add skips them, as the run's child hashes do). */
  readonly endedToolJobs = new Set<string>();
  readonly committed: IApprovalEvents[] = [];
  readonly counted: TCountDecision[] = [];
  promotions = 0;
  private readonly spentLinks = new Set<string>();

  constructor(record: IApproval, now: number) {
    this.stored = record;
    this.now = now;
  }

  /**
   * The approval as a reader sees it now: while a quorum is pending, with its votes and the input its round
   * acts on (the store's reader shows the same).
   */
  get record(): IApproval {
    const quorum = this.quorum;
    if (this.stored.status !== "pending" || quorum === undefined) return this.stored;
    return {
      ...this.stored,
      inputHash: quorum.inputHash,
      quorum: {
        required: quorum.required,
        approvals: quorum.votes,
        ...(quorum.earlier.length > 0 ? { earlierVotes: quorum.earlier } : {}),
      },
    };
  }

  /** Runs one command on the record as a caller read it (by default: as stored now). */
  run(command: TApprovalCommand, read: IApproval = this.record): Promise<TApprovalCommandOutcome> {
    return interpretApprovalCommand(this.handlers, read, command);
  }

  /** A signed link's decision: its token is spent first (the first redemption takes it), then decided. */
  redeemLink(
    tokenId: string,
    decision: Extract<TApprovalCommand, { type: "approve" | "reject" }>,
    read: IApproval = this.record,
  ): Promise<TApprovalCommandOutcome> {
    const useTaken = !this.spentLinks.has(tokenId);
    this.spentLinks.add(tokenId);
    return this.run({ type: "redeem-link", useTaken, decision }, read);
  }

  private readonly handlers: IApprovalEffectHandlers = {
    now: () => this.now,
    commit: async (_read, decision, events, checkExpiry, withCommit) => {
      await Promise.resolve();
      if (this.stored.status !== "pending") return { won: false, status: this.stored.status };
      if (checkExpiry && this.stored.expiresAt <= this.now) return { won: false, status: "expired" };
      this.stored = { ...this.stored, status: decision.decision, decision };
      this.committed.push(events);
      // The decision's jobs in the same step, as the transaction writes them: only for the one that wins.
      if (withCommit.addToolJob) this.addToolJob(withCommit.addToolJob);
      if (withCommit.promoteApprovalJob) this.promotions += 1;
      return { won: true, approval: this.stored };
    },
    read: async (approvalId) => (approvalId === this.stored.approvalId ? this.record : undefined),
    vote: async (_record, cast) => {
      await Promise.resolve();
      return this.vote(cast);
    },
    addToolJob: async (effect) => {
      await Promise.resolve();
      this.addToolJob(effect);
    },
    promoteApprovalJob: async () => {
      this.promotions += 1;
    },
    countDecision: (effect) => {
      this.counted.push(effect);
    },
  };

  private addToolJob(effect: TAddToolJob): void {
    const callId = effect.spec.callId;
    if (effect.onlyIfMissing && this.endedToolJobs.has(callId)) return;
    if (!this.toolJobs.has(callId)) this.toolJobs.set(callId, effect);
  }

  /**
   * The vote script, in memory: refused unless pending and in time; a vote sent for another input than the
   * round's is stale; one voter once per round; an edit starts a new round on its own input.
   */
  private vote(cast: TVoteCast): TVoteAnswer {
    if (this.stored.status !== "pending") return { outcome: "refused", status: this.stored.status };
    if (this.stored.expiresAt <= this.now) return { outcome: "refused", status: "expired" };
    const state = this.quorum ?? {
      required: cast.required,
      votes: [],
      earlier: [],
      voters: [],
      inputHash: this.stored.inputHash ?? testInputHash(this.stored.input),
    };
    if (state.settled) return { outcome: "settled", quorum: state };
    if (cast.inputHash !== undefined && cast.inputHash !== state.inputHash)
      return { outcome: "stale", inputHash: state.inputHash, sentInputHash: cast.inputHash };
    if (cast.kind === "settle") {
      this.quorum = { ...state, settled: "decision", settlingDecision: cast.decision };
      return { outcome: "complete", quorum: this.quorum };
    }
    if (state.voters.includes(cast.vote.approver)) return { outcome: "already-voted", quorum: state };
    const edit = cast.kind === "edit";
    const round: { votes: TQuorumVote[]; earlier: TQuorumVote[]; voters: string[] } = edit
      ? { votes: [], earlier: [...state.earlier, ...state.votes], voters: [] }
      : { votes: state.votes, earlier: state.earlier, voters: state.voters };
    const votes = [...round.votes, cast.vote];
    const complete = votes.length >= state.required;
    this.quorum = {
      required: state.required,
      votes,
      earlier: round.earlier,
      voters: [...round.voters, cast.vote.approver],
      inputHash: edit ? testInputHash(cast.vote.editedInput) : state.inputHash,
      ...(complete ? { settled: "approved" as const } : {}),
    };
    return { outcome: complete ? "complete" : "partial", quorum: this.quorum };
  }
}

/** The driver's stand-in for the store's SHA-256 input hash: any injective text will do in memory. */
export function testInputHash(input: unknown): string {
  return `hash:${JSON.stringify(input)}`;
}
