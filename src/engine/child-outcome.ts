import type { EToolCallVerdict, TApprovalDecision, TChosenRejectOption } from "../contracts/index.js";
import type { IToolExecution } from "../tools/index.js";

/** What a human's decision (or its absence) did to a parked call, as the approval job reports it. */
export interface IApprovalOutcome {
  approvalId: string;
  /**
   * approved: runs, with `editedInput` when the human edited it; refused: approved, but the policy said DENY
   * to the edited input (design decision D109: an edited input is decided again); rejected; expired: the TTL
   * ran out undecided; cancelled: the run was cancelled.
   */
  decision: TApprovalDecision;
  approver?: string;
  comment?: string;
  decidedAt: number;
  /** The human's edit, raw: the tool's schema parses it once, in the tool job. */
  editedInput?: unknown;
  verdictOnEdit?: EToolCallVerdict;
  /** The policy's texts on a refused edit, or the parked call's rejectionText. */
  rejectionText?: string;
  reason?: string;
  /** The named reject option chosen: the model reads its promptFill, then `comment`. */
  rejectOption?: TChosenRejectOption;
}

/** A finished child job of the run, as the run worker reads it back. */
export type TChildOutcome =
  | { kind: "tool"; callId: string; execution: IToolExecution }
  | { kind: "approval"; callId: string; approval: IApprovalOutcome }
  /** The job failed for an infrastructure reason after its last attempt. */
  | { kind: "job-failed"; callId: string; queue: "tools" | "approvals"; reason: string };
