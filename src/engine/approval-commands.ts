import type { EToolCallVerdict, TApprovalDecisionRecord, TQuorumVote } from "../contracts/index.js";
import type { TErrorCode } from "../errors/index.js";

/** A decision the machine refuses, as the typed error the caller raises (a stable TG_ code). */
export interface IApprovalRefusal {
  code: TErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * What the gateway's approver rules say of this approver, checked by the caller (they read the gateway's
 * settings): allowed with the number of distinct approvers the call needs, or refused by a rule.
 */
export type TApproverAccess =
  | { allowed: true; quorum: number }
  | { allowed: false; refusal: IApprovalRefusal };

/**
 * The policy's verdict on an edited input, computed by the caller before the command (the policy may be a
 * predicate that awaits): the edit as sent with the verdicts, or why it cannot be decided (it fails the
 * schema, nests too deep, or its tool is gone).
 */
export type TEditVerdict =
  | {
      ok: true;
      /** The edit as sent: the tool job parses it once. */
      editedInput: unknown;
      verdict: EToolCallVerdict;
      /** What the policy said before the approval counted (kept on an approved decision). */
      verdictBeforeApproval: EToolCallVerdict;
      rejectionText?: string;
      reason?: string;
    }
  | { ok: false; refusal: IApprovalRefusal };

interface IHumanDecision {
  approver: string;
  access: TApproverAccess;
  /** The reviewer's words: a note on an approval, the reason of a reject (the model reads it). */
  comment?: string;
  /**
   * The approval's `inputHash` as the approver's screen read it: refused as stale (TG_APPROVAL_STALE)
   * when the approval now acts on another input (an approver of a quorum edited it since).
   */
  inputHash?: string;
}

export interface IApproveCommand extends IHumanDecision {
  type: "approve";
  /** Absent: the model's input is approved as it is. */
  edit?: TEditVerdict;
}

export interface IRejectCommand extends IHumanDecision {
  type: "reject";
  /**
   * One of the approval's `rejectOptions` by name: the model reads its promptFill (and the comment after
   * it). A name the approval does not offer is refused (TG_INVALID_REQUEST naming the known ones).
   */
  option?: string;
}

/** A quorum's progress as the vote script left it (the interpreter reads it from Redis). */
export interface IQuorumProgress {
  required: number;
  /** The votes that count, oldest first: the first carries the edit they approve, if any. */
  votes: TQuorumVote[];
  /** Votes for an earlier input, set aside by an edit. */
  earlier: TQuorumVote[];
  /** `approved`: the votes completed it; `decision`: a reject or refused edit settled it. */
  settled?: "approved" | "decision";
  /** The decision that settled it, for `decision`. */
  settlingDecision?: TApprovalDecisionRecord;
}

/**
 * The commands an approval takes. approve and reject are a human's (under a quorum they become votes);
 * vote is the answer of the atomic vote script to one of them; expire is the approval job's delay running
 * out undecided; cancel is the run's cancellation; redeem-link is a signed link's approve or reject, spent
 * before it decides; hand-over is the approval job handing the decision to the run.
 */
export type TApprovalCommand =
  | IApproveCommand
  | IRejectCommand
  | {
      type: "vote";
      /** Who cast the vote. */
      approver: string;
      result:
        | { outcome: "partial" | "complete" | "settled" | "already-voted"; quorum: IQuorumProgress }
        /** The round acts on another input (`inputHash`) than the one the vote was sent for. */
        | { outcome: "stale"; inputHash: string; sentInputHash: string }
        /** The approval's status when it is no longer pending, `expired` or `missing`. */
        | { outcome: "refused"; status: string };
    }
  | { type: "expire" }
  | { type: "cancel" }
  | {
      type: "redeem-link";
      /** Whether this redemption took the link's single use (its twin or a replay took it otherwise). */
      useTaken: boolean;
      decision: IApproveCommand | IRejectCommand;
    }
  | { type: "hand-over" };
