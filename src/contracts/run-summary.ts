import { z } from "zod";
import { reportedStatusOf, runStatusSchema, type TRunState } from "./run-state.js";

/** The first line of a run's input is cut at this many characters in a listing. */
export const inputLineMaxChars = 200;

/**
 * A run as a listing shows it: what a person scans for (status, user, thread, what was asked, the tools
 * it called, its approvals, model steps, tokens, how long it took, how it failed), without its messages.
 */
export const runSummarySchema = z.object({
  runId: z.string(),
  threadId: z.string(),
  /** Absent: the default tenant. */
  tenant: z.string().optional(),
  /** `waiting` while a call of the run waits for a person (an approval); see reportedStatusOf. */
  status: runStatusSchema.describe("`waiting` while a call of the run waits for a person (an approval)."),
  userId: z.string(),
  createdBy: z.string().optional(),
  /** The input's first non-empty line, cut at `inputLineMaxChars` characters. */
  inputFirstLine: z.string(),
  /** Each tool the model called (in the order first called), refused calls included. */
  toolsCalled: z.array(z.string()),
  approvals: z.object({
    /** Calls waiting for a human now. */
    pending: z.number().int().min(0),
    /** Calls a human (or the expiry) decided. */
    decided: z.number().int().min(0),
  }),
  /** Model calls made. */
  steps: z.number().int().min(0),
  /** Prompt and completion tokens of every model call. */
  tokens: z.number().int().min(0),
  createdAt: z.number(),
  startedAt: z.number().optional(),
  finishedAt: z.number().optional(),
  /** From creation to finish; absent while the run is not finished. */
  durationMs: z.number().min(0).optional(),
  /** The code of the error a failed run ended with. */
  errorCode: z.string().optional(),
  /** The run this one re-ran (POST /v1/runs/{runId}/rerun). */
  rerunOf: z.string().optional(),
  /** The run and call this one was forked from (POST /v1/runs/{runId}/fork). */
  forkOf: z.object({ runId: z.string(), callId: z.string() }).optional(),
  /** The failed, timed-out or cancelled run this one continues (POST /v1/runs/{runId}/resume). */
  resumeOf: z.string().optional(),
  /** The schedule whose tick created the run. */
  scheduleId: z.string().optional(),
});

export type TRunSummary = z.infer<typeof runSummarySchema>;

/** Every tool the run's model called, in the order first called. */
export function toolsCalledBy(state: TRunState): string[] {
  const names = new Set<string>();
  for (const part of state.toolResults) names.add(part.toolName);
  for (const call of state.step?.calls ?? []) names.add(call.toolName);
  return [...names];
}

export function runSummaryOf(state: TRunState): TRunSummary {
  const { request } = state;
  const calls = state.step?.calls ?? [];
  const decidedOnResults = state.toolResults.filter((part) => part.approval !== undefined).length;
  const decidedNotSettled = calls.filter((call) => call.approval !== undefined && call.state !== "settled");
  const summary: TRunSummary = {
    runId: state.runId,
    threadId: state.threadId,
    status: reportedStatusOf(state),
    userId: request.userContext.userId,
    inputFirstLine: firstLineOf(request.input),
    toolsCalled: toolsCalledBy(state),
    approvals: {
      pending: calls.filter((call) => call.state === "parked").length,
      decided: decidedOnResults + decidedNotSettled.length,
    },
    steps: state.modelCalls,
    tokens: state.usage.totalTokens,
    createdAt: state.createdAt,
  };
  if (request.tenant !== undefined) summary.tenant = request.tenant;
  if (request.createdBy !== undefined) summary.createdBy = request.createdBy;
  if (state.startedAt !== undefined) summary.startedAt = state.startedAt;
  if (state.finishedAt !== undefined) {
    summary.finishedAt = state.finishedAt;
    summary.durationMs = Math.max(0, state.finishedAt - state.createdAt);
  }
  if (state.error !== undefined) summary.errorCode = state.error.code;
  if (request.rerunOf !== undefined) summary.rerunOf = request.rerunOf;
  if (request.forkOf !== undefined) summary.forkOf = request.forkOf;
  if (request.resumeOf !== undefined) summary.resumeOf = request.resumeOf;
  if (request.scheduleId !== undefined) summary.scheduleId = request.scheduleId;
  return summary;
}

function firstLineOf(input: string): string {
  const line = input.split(/\r?\n/).find((text) => text.trim() !== "") ?? "";
  const trimmed = line.trim();
  return trimmed.length > inputLineMaxChars ? `${trimmed.slice(0, inputLineMaxChars - 1)}…` : trimmed;
}
