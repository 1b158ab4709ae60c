import { z } from "zod";
import type { TCancelReason } from "./cancel-reason.js";
import type { IGatewayResponse, ITokenUsage, TTerminalRunStatus } from "./gateway-io.js";
import type { TModelFallbackReason } from "./model-fallback.js";
import { approvalDecisions } from "./result.js";

export { type IModelFallback, modelFallbackReasons, type TModelFallbackReason } from "./model-fallback.js";

/**
 * The run's `approval-decided` event: written by the approval's decide script exactly as the approval
 * machine built it, validated here before it is written.
 */
export const approvalDecidedDataSchema = z.object({
  approvalId: z.string(),
  callId: z.string(),
  toolName: z.string(),
  decision: z.enum(approvalDecisions),
  approver: z.string().optional(),
});

export type TApprovalDecidedData = z.infer<typeof approvalDecidedDataSchema>;

/** What a resume took over from the run it continues, and what it tries again. */
export interface IRunResumedData {
  resumeOf: string;
  /** How the run it continues ended. */
  status: TTerminalRunStatus;
  /** The step the resume goes on at. */
  step: number;
  /** The original's calls taken over with their results: never run again (late results included). */
  completedCalls: number;
  /** The calls the original's ending cut that run again: the resume's id, its tool, the original's id. */
  retriedCalls: Array<{ callId: string; toolName: string; originalCallId: string }>;
  /** Cut calls whose tool job completed after the original ended: their results are taken over. */
  lateResults: Array<{ callId: string; toolName: string }>;
  /** The step that failed was a model call: the model is asked again. */
  modelAskedAgain: boolean;
}

/**
 * What each event of a run carries, by type. Events are written to the run's stream in the same atomic
 * step as the change they announce, and only once that change exists: a `tool-call-parked` event is
 * written with its approval record, so the approval it names can be decided at once.
 */
export interface IRunEventDataByType<TToolName extends string = string> {
  /** Where the run comes from, for a follower: the run it re-runs, the run and call it forks, its schedule's tick. */
  "run-queued": {
    threadId: string;
    userId: string;
    tenant?: string;
    createdBy?: string;
    rerunOf?: string;
    forkOf?: { runId: string; callId: string };
    resumeOf?: string;
    scheduleId?: string;
    scheduledAt?: number;
  };
  /**
   * A resume's first state (written with its `run-queued`): what it took over from the run it continues
   * and what it tries again (POST /v1/runs/{runId}/resume).
   */
  "run-resumed": IRunResumedData;
  "run-started": Record<string, never>;
  "model-replied": {
    step: number;
    final: boolean;
    toolsOffered: TToolName[];
    /** The model's names, as it sent them (an unknown one included). */
    toolCalls: Array<{ id: string; name: string }>;
    usage: ITokenUsage;
    /** The named model that answered (absent in events written before named models). */
    model?: string;
    /** How long the model call took (absent in events written before it was recorded). */
    durationMs?: number;
    /** A run that asked for a structured answer: what this answer led to (valid, retry, invalid, truncated). */
    output?: "valid" | "retry" | "invalid" | "truncated";
  };
  /**
   * Text of a streamed model reply, as it is written: batched (the first piece of a step at once, then at
   * most one write per 50 ms or per 1 KB). Readers join a step's pieces in order; `step-retracted` drops them.
   */
  "text-delta": { step: number; text: string };
  /**
   * The step's text so far is void: the step is run again (after a crash, or a model request retried
   * after part of its answer went out). Written before the new attempt's first delta.
   */
  "step-retracted": { step: number };
  "tool-call-dispatched": { callId: string; toolName: TToolName };
  /** The step's model call moved from one named model to the next of its fallbacks. */
  "model-fallback": { step: number; from: string; to: string; reason: TModelFallbackReason };
  /** A tool call ended (its job finished): ok, or how it failed (`errorCode`, when the tool gave one). */
  "tool-call-settled": {
    callId: string;
    toolName: TToolName;
    ok: boolean;
    durationMs: number;
    errorCode?: string;
  };
  "tool-call-parked": {
    callId: string;
    toolName: TToolName;
    approvalId: string;
    reason?: string;
    expiresAt: number;
  };
  "approval-decided": Omit<TApprovalDecidedData, "toolName"> & { toolName: TToolName };
  "step-settled": { step: number; endedByTool?: TToolName; phase: string };
  "run-cancel-requested": { reason: TCancelReason };
  /** The response without the tools' outputs (what the model read stays): GET the run for those. */
  "run-finished": { status: TTerminalRunStatus; response: IGatewayResponse<unknown, TToolName> };
}

export type TRunEventType = keyof IRunEventDataByType;

export const runEventTypes = [
  "run-queued",
  "run-resumed",
  "run-started",
  "model-replied",
  "text-delta",
  "step-retracted",
  "tool-call-dispatched",
  "model-fallback",
  "tool-call-settled",
  "tool-call-parked",
  "approval-decided",
  "step-settled",
  "run-cancel-requested",
  "run-finished",
] as const satisfies readonly TRunEventType[];

/** An event to append: a discriminated union on `type`. */
export type TRunEventInput = {
  [TType in TRunEventType]: { type: TType; data: IRunEventDataByType[TType] };
}[TRunEventType];

/**
 * An event as read back: its stream id (the SSE id, Last-Event-ID) and when it was written. `TToolName`
 * (a typed GatewayClient's) types the tool names it carries.
 */
export type TRunEvent<TToolName extends string = string> = {
  [TType in TRunEventType]: {
    type: TType;
    data: IRunEventDataByType<TToolName>[TType] & { at?: number };
    /** The stream entry id: pass it back as Last-Event-ID to resume after it. */
    id: string;
    runId: string;
  };
}[TRunEventType];
