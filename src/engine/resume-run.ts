import {
  callIdOf,
  type IChatToolCall,
  type IRunResumedData,
  type IToolResultPart,
  outputIssueSchema,
  type TChatMessage,
  type TPlannedCall,
  type TRunRequest,
  type TRunState,
  type TToolExecutionRecord,
} from "../contracts/index.js";
import { planCall } from "./apply-model-reply.js";
import { createRunState } from "./create-run.js";
import { type IRunTools, visibleToolsOf } from "./model-request.js";
import { outputCorrectionMessage } from "./output-decision.js";
import {
  type IOriginalCall,
  indexInStep,
  settledStepOf,
  settledWith,
  takenOver,
  withCallId,
} from "./replay-calls.js";
import { resultPartOf } from "./result-part.js";
import { budgetSpent, toolCallsLeft } from "./run-budget.js";

/** The new run a resume is, as `createRunState` takes it. */
export interface IResumeStart {
  runId: string;
  threadId: string;
  /** The resume's request: the original's, with `resumeOf`. */
  request: TRunRequest;
  requestHash: string;
  now: number;
  /** The resume is on a thread of its own (the original owned its thread). */
  ownsThread: boolean;
  /**
   * What became of the original's cut calls after it ended (cutCallsOf), by the original's call id: the
   * execution of a call whose tool job completed since (its result is taken over: it ran, once). A cut
   * call absent here never ran, or its job failed: it is planned again.
   */
  lateExecutions: ReadonlyMap<string, TToolExecutionRecord>;
}

export interface IResumeRefusal {
  code: "TG_RUN_NOT_RESUMABLE";
  message: string;
  details: Record<string, unknown>;
}

/** What a resume takes over and tries again: its `run-resumed` event says it. */
export type IResumeSummary = IRunResumedData;

export type TResumeStart =
  | { ok: true; state: TRunState; summary: IResumeSummary }
  | { ok: false; refusal: IResumeRefusal };

/** A call of the original that its ending cut: it may not have run, or is still running. */
export interface ICutCall {
  callId: string;
  toolName: string;
  /** The approval it was parked for, if any (it may still be pending after a failure). */
  approvalId?: string;
}

/** Where the original stopped: a step whose calls its ending cut, or a model call. */
type TStopPoint =
  | {
      type: "step";
      stepIndex: number;
      calls: IOriginalCall[];
      /** The calls the ending cut, by the original's id. */
      cut: ReadonlySet<string>;
      assistantText: string | null;
      model?: string;
      /** The transcript and results before the step. */
      messages: TChatMessage[];
      toolResults: IToolResultPart[];
    }
  | { type: "model" };

/**
 * The calls of a failed, timed-out or cancelled run that its ending cut: those of the step it stopped in
 * that had not settled (a job that failed for good leaves them so), or that the cancellation settled as
 * cancelled. The resume asks what became of their jobs before it plans them again.
 */
export function cutCallsOf(original: TRunState): ICutCall[] {
  const stop = stopPointOf(original);
  if (stop.type !== "step") return [];
  return stop.calls
    .filter((call) => stop.cut.has(call.callId))
    .map((call) => ({
      callId: call.callId,
      toolName: call.toolName,
      ...(call.approvalId !== undefined ? { approvalId: call.approvalId } : {}),
    }));
}

/**
 * A resume's first state (issue 38): the run `original` continued from its last durable state, as a new
 * run. Everything the original completed is taken over and never run or asked again: its model replies,
 * its tool results (outputs inline, ids of the resume), the human decisions on them. The step that failed
 * is tried again: the model is asked again when the original stopped at a model call (after a structured
 * answer that failed its schema, with the issues shown to the model, as a retry does); the calls its
 * ending cut are planned again by the same `planCall` as a model reply's (the policy and approvals apply,
 * under the resume's user context), but for a cut call whose job completed after the ending: its result is
 * taken over (it ran, once). Refused for a completed run and one not finished (TG_RUN_NOT_RESUMABLE).
 */
export async function resumeRunState(
  original: TRunState,
  resume: IResumeStart,
  tools: IRunTools,
): Promise<TResumeStart> {
  const refusal = resumeRefusalOf(original);
  if (refusal) return { ok: false, refusal };
  const stop = stopPointOf(original);
  const base = baseState(original, resume, stop);
  if (stop.type === "model") {
    return {
      ok: true,
      state: base,
      summary: summaryOf(original, base, { completedCalls: base.toolResults.length, modelAskedAgain: true }),
    };
  }
  const { stepIndex } = stop;
  const visibleNames = new Set(visibleToolsOf(base, tools).map((tool) => tool.name));
  const callsLeft = toolCallsLeft(base);
  const planned: TPlannedCall[] = [];
  const retriedCalls: IResumeSummary["retriedCalls"] = [];
  const lateResults: IResumeSummary["lateResults"] = [];
  for (const [at, call] of stop.calls.entries()) {
    const callId = callIdOf(resume.runId, stepIndex, at);
    if (!stop.cut.has(call.callId)) {
      planned.push(takenOver(call, at, callId));
      continue;
    }
    const late = resume.lateExecutions.get(call.callId);
    if (late !== undefined) {
      planned.push(lateResult(call, at, callId, stepIndex, late));
      lateResults.push({ callId, toolName: call.toolName });
      continue;
    }
    const toolCall: IChatToolCall = {
      id: call.toolCallId,
      name: call.toolName,
      argumentsJson: call.argumentsJson,
    };
    planned.push(await planCall(base, toolCall, at, visibleNames, tools, at >= callsLeft));
    retriedCalls.push({ callId, toolName: call.toolName, originalCallId: call.callId });
  }
  const state: TRunState = {
    ...base,
    phase: "tools",
    step: {
      stepIndex,
      ...(stop.model !== undefined ? { model: stop.model } : {}),
      assistantText: stop.assistantText,
      calls: planned,
    },
  };
  return {
    ok: true,
    state,
    summary: summaryOf(original, state, {
      completedCalls: base.toolResults.length + (planned.length - retriedCalls.length),
      retriedCalls,
      lateResults,
      modelAskedAgain: false,
    }),
  };
}

/** Only a run that ended without its answer is resumed: TG_RUN_NOT_RESUMABLE for any other. */
export function resumeRefusalOf(original: TRunState): IResumeRefusal | undefined {
  const { runId, status } = original;
  if (status === "failed" || status === "timed_out" || status === "cancelled") return undefined;
  const completed = status === "completed";
  return {
    code: "TG_RUN_NOT_RESUMABLE",
    message: completed
      ? `Run ${runId} completed: there is nothing to resume. Rerun it to ask again.`
      : `Run ${runId} has not finished (${status}): only a failed, timed-out or cancelled run is resumed.`,
    details: { runId, status, reason: completed ? "completed" : "unfinished" },
  };
}

/** Where the original stopped (see TStopPoint). */
function stopPointOf(original: TRunState): TStopPoint {
  const current = original.step;
  if (current) {
    // A job that failed for good ends the run where it was: the step's unsettled calls are cut.
    const calls = current.calls.map((call) => originalCallOf(call));
    return {
      type: "step",
      stepIndex: current.stepIndex,
      calls,
      cut: new Set(current.calls.filter((call) => call.state !== "settled").map((call) => call.callId)),
      assistantText: current.assistantText,
      ...(current.model !== undefined ? { model: current.model } : {}),
      messages: original.messages,
      toolResults: original.toolResults,
    };
  }
  // A cancellation (or deadline) settles the step it stops as cancelled: the last settled step.
  const last = original.stepIndex - 1;
  if ((original.status !== "cancelled" && original.status !== "timed_out") || last < 0)
    return { type: "model" };
  const settled = settledStepOf(original.messages, original.toolResults, original.modelReplies, last);
  const cut = settled?.calls.filter((call) => call.result?.outcome === "cancelled") ?? [];
  if (!settled || cut.length === 0) return { type: "model" };
  return {
    type: "step",
    stepIndex: last,
    calls: settled.calls,
    cut: new Set(cut.map((call) => call.callId)),
    assistantText: settled.assistantText,
    ...(settled.model !== undefined ? { model: settled.model } : {}),
    messages: settled.messagesBefore,
    toolResults: original.toolResults.filter((part) => part.step < last),
  };
}

function originalCallOf(call: TPlannedCall): IOriginalCall {
  return {
    toolCallId: call.toolCallId,
    callId: call.callId,
    toolName: call.toolName,
    argumentsJson: call.argumentsJson,
    ...(call.state === "settled" && call.result ? { result: call.result } : {}),
    ...(call.verdict !== undefined ? { verdict: call.verdict } : {}),
    ...(call.approval !== undefined ? { approval: call.approval } : {}),
    ...(call.approvalId !== undefined ? { approvalId: call.approvalId } : {}),
    ...(call.endsRun ? { endsRun: true } : {}),
  };
}

/**
 * The resume queued with the original's transcript, results and counters up to where it stopped: on the
 * original's thread (its history carried, the messages its thread holds already counted) or on one of
 * its own, with the original's pinned MCP tools.
 */
function baseState(original: TRunState, resume: IResumeStart, stop: TStopPoint): TRunState {
  const { runId, threadId, request, requestHash, now, ownsThread } = resume;
  const created = createRunState({ runId, threadId, request, requestHash, now, ownsThread });
  const earlier = stop.type === "step" ? stop.toolResults : original.toolResults;
  const toolResults = earlier.map((part, at) =>
    withCallId(part, callIdOf(resume.runId, part.step, indexInStep(earlier, at))),
  );
  const stepIndex = stop.type === "step" ? stop.stepIndex : original.stepIndex;
  const state: TRunState = {
    ...created,
    ...(original.toolListHash !== undefined ? { toolListHash: original.toolListHash } : {}),
    ...threadFieldsOf(original, resume.ownsThread),
    messages: stop.type === "step" ? stop.messages : messagesToAskAgain(original),
    stepIndex,
    executed: toolResults.filter((part) => part.outcome === "ok").map((part) => part.toolName),
    toolResults,
    modelCalls: original.modelCalls,
    usage: original.usage,
    ...(original.modelReplies !== undefined ? { modelReplies: original.modelReplies } : {}),
    ...(original.outputRetries !== undefined ? { outputRetries: original.outputRetries } : {}),
  };
  return stop.type === "model" ? withModelPhase(state, original) : state;
}

/**
 * Where a resume stands on its thread. A run that started read the thread's history, and its finish put
 * its messages there: the resume reads that same history (not the thread's, which now holds them) and
 * its own finish appends only what comes after them. One that never started put nothing there: the
 * resume reads the thread when it starts, as any run.
 */
function threadFieldsOf(
  original: TRunState,
  ownsThread: boolean,
): Pick<TRunState, "history" | "historyCarried" | "messagesOnThread"> {
  const carried = original.startedAt !== undefined || original.historyCarried === true;
  if (!carried) return { history: [] };
  if (ownsThread) return { history: original.history };
  const onThread = Math.max(
    original.messagesOnThread ?? 0,
    original.startedAt !== undefined ? original.messages.length : 0,
  );
  return { history: original.history, historyCarried: true, messagesOnThread: onThread };
}

/**
 * The transcript the model is asked again with: after a structured answer that failed its schema, the
 * answer stays and the issues follow (Tollgate's words, as a retry shows them); an answer cut at the
 * endpoint's token limit is left out (asked again, it is written anew).
 */
function messagesToAskAgain(original: TRunState): TChatMessage[] {
  const code = original.error?.code;
  const last = original.messages.at(-1);
  if (code === "TG_OUTPUT_TRUNCATED" && last?.role === "assistant" && !last.toolCalls?.length)
    return original.messages.slice(0, -1);
  if (code === "TG_OUTPUT_INVALID") {
    const issues = outputIssueSchema.array().safeParse(original.error?.details?.issues);
    if (issues.success) return [...original.messages, outputCorrectionMessage(issues.data)];
  }
  return original.messages;
}

/**
 * The model phase the original was in when it stopped (its finish overwrote it): the last call without
 * tools when a tool ended the run, a budget was spent or the steps ran out (as settleStep decides), with
 * that reason; else a model call with tools.
 */
function withModelPhase(state: TRunState, original: TRunState): TRunState {
  if (original.endedByTool !== undefined)
    return { ...state, phase: "final-model", endedByTool: original.endedByTool, stopReason: "ended_by_tool" };
  if (budgetSpent(state)) return { ...state, phase: "final-model", stopReason: "budget_exhausted" };
  if (state.stepIndex >= state.request.maxSteps)
    return { ...state, phase: "final-model", stopReason: "max_steps" };
  return { ...state, phase: "model" };
}

/** A cut call whose job completed after the original ended: settled with that execution, as it ran. */
function lateResult(
  call: IOriginalCall,
  index: number,
  callId: string,
  stepIndex: number,
  execution: TToolExecutionRecord,
): TPlannedCall {
  const asPlanned: TPlannedCall = {
    index,
    toolCallId: call.toolCallId,
    callId,
    toolName: call.toolName,
    argumentsJson: call.argumentsJson,
    state: "settled",
    ...(call.verdict !== undefined ? { verdict: call.verdict } : {}),
    ...(call.approval !== undefined ? { approval: call.approval } : {}),
  };
  const result = resultPartOf(
    asPlanned,
    stepIndex,
    execution,
    call.approval !== undefined ? { approval: call.approval } : {},
  );
  return settledWith({ ...call, ...(execution.endsRun ? { endsRun: true } : {}) }, index, callId, result);
}

function summaryOf(
  original: TRunState,
  state: TRunState,
  parts: Pick<IResumeSummary, "completedCalls" | "modelAskedAgain"> &
    Partial<Pick<IResumeSummary, "retriedCalls" | "lateResults">>,
): IResumeSummary {
  return {
    resumeOf: original.runId,
    // Refused before unless it ended (resumeRefusalOf).
    status: original.status as IRunResumedData["status"],
    step: state.stepIndex,
    completedCalls: parts.completedCalls,
    retriedCalls: parts.retriedCalls ?? [],
    lateResults: parts.lateResults ?? [],
    modelAskedAgain: parts.modelAskedAgain,
  };
}
