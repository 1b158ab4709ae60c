import type { TApprovalReport } from "../contracts/index.js";
import type { IToolExecution } from "../tools/index.js";

/** A finished child job of the run, as the run worker reads it back. */
export type TChildOutcome =
  | { kind: "tool"; callId: string; execution: IToolExecution }
  | { kind: "approval"; callId: string; approval: TApprovalReport }
  /** The job failed for an infrastructure reason after its last attempt. */
  | { kind: "job-failed"; callId: string; queue: "tools" | "approvals"; reason: string };
