import { z } from "zod";
import {
  modelReplySchema,
  plannedCallSchema,
  type TRunState,
  tokenUsageSchema,
  toolResultPartSchema,
} from "./run-state.js";

/** A call of the step in progress that has not settled yet: what it is waiting for. */
export const openCallSchema = z.object({
  callId: z.string(),
  toolName: z.string(),
  /** pending: its verdict; dispatched: a tool job runs it; parked: a human decides it. */
  state: plannedCallSchema.shape.state.exclude(["settled"]),
  /** The model's arguments, parsed when they are JSON (else the text as sent). */
  input: z.unknown(),
  /** The parked call's approval. */
  approvalId: z.string().optional(),
  /** A human's decision, once made (the approved call then runs). */
  approval: plannedCallSchema.shape.approval,
  /** A fork's call whose input the fork request gave, not the model. */
  forkEdit: plannedCallSchema.shape.forkEdit,
});

/**
 * How far an unfinished run got, for a run's page to draw its timeline before the run ends: the calls
 * settled so far (with their decisions, outputs and durations), each model reply so far (which named
 * model answered, its tokens), and the calls of the current step still open. A finished run's response
 * carries the same `toolResults` and `modelReplies`.
 */
export const runProgressSchema = z.object({
  toolResults: z.array(toolResultPartSchema),
  modelReplies: z.array(modelReplySchema),
  usage: tokenUsageSchema,
  openCalls: z.array(openCallSchema),
});

export type TRunProgress = z.infer<typeof runProgressSchema>;
export type TOpenCall = z.infer<typeof openCallSchema>;

/** The progress of a run from its stored state (outputs stored apart are the reader's to put back). */
export function runProgressOf(state: TRunState): TRunProgress {
  const calls = state.step?.calls ?? [];
  const settledNow = calls.flatMap((call) => (call.state === "settled" && call.result ? [call.result] : []));
  const openCalls = calls.flatMap((call): TOpenCall[] => {
    if (call.state === "settled") return [];
    const open: TOpenCall = {
      callId: call.callId,
      toolName: call.toolName,
      state: call.state,
      input: argumentsOf(call.argumentsJson),
    };
    if (call.approvalId !== undefined) open.approvalId = call.approvalId;
    if (call.approval !== undefined) open.approval = call.approval;
    if (call.forkEdit !== undefined) open.forkEdit = call.forkEdit;
    return [open];
  });
  return {
    toolResults: [...state.toolResults, ...settledNow],
    modelReplies: state.modelReplies ?? [],
    usage: state.usage,
    openCalls,
  };
}

/** Shown as JSON when it is, else as the text the model wrote (the engine's own reading lives in engine/). */
function argumentsOf(argumentsJson: string): unknown {
  if (argumentsJson.trim() === "") return {};
  try {
    return JSON.parse(argumentsJson);
  } catch {
    return argumentsJson;
  }
}
