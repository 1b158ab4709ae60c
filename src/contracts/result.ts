import type { TApprovalInputs } from "./approval-inputs.js";
import type { EToolCallVerdict } from "./verdict.js";

/** How a tool call ended: the label metrics and logs use. */
export const toolCallOutcomes = [
  "ok",
  "error",
  "timeout",
  "denied",
  "invalid_input",
  "hidden",
  "unknown_tool",
  "rejected",
  "expired",
  "cancelled",
] as const;

export type TToolCallOutcome = (typeof toolCallOutcomes)[number];

/**
 * The one vocabulary of approval decisions, everywhere a decision is recorded or reported: approved (the call
 * runs, with the human's edit if any); refused (a human approved an edit that the policy then denied: design
 * decision D109, an edited input is decided again; the call never runs); rejected; expired (nobody decided
 * within the TTL); cancelled (the run was cancelled while the call waited).
 */
export const approvalDecisions = ["approved", "refused", "rejected", "expired", "cancelled"] as const;

export type TApprovalDecision = (typeof approvalDecisions)[number];

/** A human's decision on a parked call, kept on its result. */
export interface IApprovalRecordOnResult {
  approvalId: string;
  decision: TApprovalDecision;
  /** The approver's identity (the API token's subject); absent on expiry. */
  approver?: string;
  comment?: string;
  /** Epoch milliseconds. */
  decidedAt: number;
  /** The input as the human edited it (raw, before the tool's schema): it ran unless the decision is refused. */
  editedInput?: unknown;
  /**
   * The verdict of the policy on the edited input (design decision D109: an edited input is decided again).
   */
  verdictOnEdit?: EToolCallVerdict;
  /** The name of the reject option the approver chose (the model read its promptFill). */
  rejectOption?: string;
}

/**
 * One tool call of a run, as stored with the response. With the gateway's tool names
 * (`IToolResultPart<"lookup_order" | ...>`, what a typed GatewayClient returns) `toolName` is one of them,
 * except on an `unknown_tool` outcome, where it is whatever name the model made up.
 */
export type IToolResultPart<TToolName extends string = string> =
  | (Omit<IToolResultFields, "toolName" | "outcome"> & {
      toolName: TToolName;
      outcome: Exclude<TToolCallOutcome, "unknown_tool">;
    })
  | (Omit<IToolResultFields, "outcome"> & { outcome: "unknown_tool" });

/** The fields of a tool call's result, whatever the gateway (`IToolResultPart` with no tool names). */
export interface IToolResultFields {
  /** The model's id for the call. */
  toolCallId: string;
  /** Tollgate's stable id for the call (`<runId>-s<step>-c<index>`), passed to `execute` as `callId`. */
  callId: string;
  toolName: string;
  /** The model step that asked for the call (0-based). */
  step: number;
  /**
   * The input as sent, before the tool's schema parsed it: the human's edit when one was made, else the
   * model's arguments (the JSON text itself when it was not JSON).
   */
  input: unknown;
  /** The tool's full output, untruncated (absent on error). */
  output?: unknown;
  /**
   * Inside Tollgate only (never in a response): the output is stored apart from the run's state, and
   * the run's readers put it back in `output`.
   */
  outputStoredApart?: true;
  /** Exactly what the model read. */
  text: string;
  isError: boolean;
  /** The failure's status (dynaError status, 504 at timeout, 500 for an unexpected error, ...). */
  status?: number;
  /** The dynaError's `code`, or the gateway's own code for failures it detected. */
  errorCode?: string | number;
  outcome: TToolCallOutcome;
  verdict?: EToolCallVerdict;
  /** Set when the model's text was cut to maxOutputChars. */
  truncatedChars?: number;
  approval?: IApprovalRecordOnResult;
  /**
   * A call that went through an approval: the input the model proposed, the one the approver approved
   * (their edit, else the proposal; absent unless approved) and the one `execute` received after the
   * tool's schema (absent unless it ran), side by side, as `GET /v1/approvals/:id` shows them.
   */
  inputs?: TApprovalInputs;
  /** Time spent in execute, 0 when it never ran. */
  durationMs: number;
  /** Whether this call ended the run (endsRun). */
  endedRun?: boolean;
  /** A fork's result taken over from the run it forked (that run's call), not run again. */
  takenFrom?: { runId: string; callId: string };
  /**
   * A fork's call whose input the fork request gave (by the fork's creator), not the model:
   * `originalInput` is the input the call had in the run forked.
   */
  forkEdit?: { originalInput: unknown };
}
