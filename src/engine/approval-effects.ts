import type {
  IApproval,
  TApprovalDecision,
  TApprovalDecisionRecord,
  TApprovalEvent,
  TApprovalReport,
  TQuorumVote,
  TRunEventInput,
} from "../contracts/index.js";
import type { IApprovalRefusal } from "./approval-commands.js";
import type { IToolJobRun, IToolJobSpec } from "./run-effects.js";

/**
 * What the shell does for an approval, in this order (the interpreter stops at a refused commit or
 * vote). Everything an effect needs is in it: the shell builds nothing.
 */
export type TApprovalEffect =
  /**
   * Writes the decision and the transition's events (the run's `approval-decided`, the approval
   * stream's event) in one atomic step, refused when the approval is no longer pending (or, with
   * `checkExpiry`, past its expiry).
   */
  | {
      type: "commit-decision";
      decision: TApprovalDecisionRecord;
      checkExpiry: boolean;
      /** Refused because this very decision is already recorded (same status and time): not a refusal. */
      acceptSameDecision: boolean;
    }
  /** Counts one vote of a quorum in one atomic step; its answer is the machine's next `vote` command. */
  | {
      type: "cast-vote";
      kind: "vote" | "edit" | "settle";
      vote: TQuorumVote;
      required: number;
      /** The decision that settles the quorum at once (a reject, an edit the policy refused). */
      decision?: TApprovalDecisionRecord;
      /** The `inputHash` the approver was shown: checked against the round's input in the vote's step. */
      inputHash?: string;
    }
  /**
   * Adds the approved call's tool job as a child of the run (a no-op when it exists). `run` is absent
   * for a version 1 record: the shell reads it from the run's state. `onlyIfMissing`: read first
   * whether the job exists or ended (the approval job's add after the decision's own).
   */
  | {
      type: "add-tool-job";
      runId: string;
      run: IToolJobRun | undefined;
      spec: IToolJobSpec;
      onlyIfMissing: boolean;
    }
  /** Wakes the parked approval job, so it hands the decision to the run now. */
  | { type: "promote-approval-job" }
  /** Counts the decision in the metrics (the approval job does, once per approval). */
  | { type: "count-decision"; tool: string; decision: TApprovalDecision; waitSeconds: number }
  /** Answers the caller with this refusal once the effects before it are done. */
  | { type: "refuse"; refusal: IApprovalRefusal }
  /** The approval job's result: the decision the run reads back. */
  | { type: "report-to-run"; callId: string; report: TApprovalReport };

/** The events a decision writes in its commit. */
export interface IApprovalEvents {
  run: Extract<TRunEventInput, { type: "approval-decided" }>;
  approval: TApprovalEvent;
}

/**
 * A command's answer: the record as it is once the effects are done, the effects, and the events the
 * commit writes; or a refusal (already decided, expired, stale, forbidden, ...).
 */
export type TApprovalTransition =
  | { ok: true; record: IApproval; effects: TApprovalEffect[]; events: IApprovalEvents | undefined }
  | { ok: false; refusal: IApprovalRefusal };
