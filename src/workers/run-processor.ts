import { DelayedError, type Job, UnrecoverableError, WaitingChildrenError } from "bullmq";
import {
  applyChildResults,
  applyVerdicts,
  evaluateVerdicts,
  isTerminal,
  nextAction,
  settleStep,
  startRun,
  stopRun,
  type TPlannedCall,
  type TRunState,
} from "../engine/index.js";
import { jobLogger } from "../observability/index.js";
import { runJobNames, runJobSchema } from "../queue/index.js";
import { addToolJobs, parkCalls } from "../runtime/child-jobs.js";
import { cancelReasonOf, requestCancel } from "../runtime/request-cancel.js";
import type { IRunEventInput, IStoredRun } from "../store/index.js";
import { readChildOutcomes } from "./child-outcomes.js";
import { finalizeRun } from "./finalize-run.js";
import { runModelStep } from "./model-step.js";
import { saveRun } from "./save-run.js";
import { waitForThreadTurn } from "./thread-turn.js";
import { approvalTtlMsOf, type IWorkerContext, runToolsOf } from "./worker-context.js";

/**
 * The run job's processor. Each activation loads the checkpointed state, asks the engine what to do next,
 * does it, and checkpoints again; it ends when the run finishes or the run job moves to waiting-children
 * (releasing its worker while tools run or approvals wait). A worker killed anywhere costs at most the
 * model call in flight: children have deterministic ids and completed ones are never run again.
 */
export function createRunProcessor(workerContext: IWorkerContext) {
  return async (job: Job, token?: string): Promise<unknown> => {
    let context = workerContext;
    if (job.name === runJobNames.deadline) return handleDeadline(context, job);
    const { runId } = runJobSchema.parse(job.data);
    let stored = await context.runtime.runs.load(runId);
    if (!stored) throw new UnrecoverableError(`Run ${runId} has no stored state.`);
    context = {
      ...context,
      logger: jobLogger(context.logger, {
        runId,
        threadId: stored.state.threadId,
        queue: "runs",
        jobId: job.id,
      }),
    };
    if (isTerminal(stored.state)) return finalizeRun(context, stored);

    const cancelReason = await cancelReasonOf(context.runtime, runId);
    if (cancelReason) return stopAndFinalize(context, stored, cancelReason);

    if (stored.state.status === "queued") {
      const myTurn = await waitForThreadTurn(context, job, token, stored.state);
      if (!myTurn) throw new DelayedError();
      const history = await context.runtime.threads.history(stored.state.threadId);
      stored = await saveRun(context, stored, startRun(stored.state, history, context.runtime.now()), [
        { type: "run-started", data: {} },
      ]);
      context.metrics?.runStarted();
      context.logger.info({ historyMessages: history.length }, "run started");
    }

    const cancellation = context.cancelBus.register(runId);
    try {
      return await stepUntilBlocked(context, job, token, stored, cancellation.signal);
    } finally {
      cancellation.release();
    }
  };
}

async function stepUntilBlocked(
  context: IWorkerContext,
  job: Job,
  token: string | undefined,
  initial: IStoredRun,
  cancelSignal: AbortSignal,
): Promise<unknown> {
  const tools = runToolsOf(context, initial.state.request);
  const now = () => context.runtime.now();
  let stored = initial;
  // An activation may be a resume from waiting-children (or a crash): children may have reported.
  let mustReadChildren = true;
  for (;;) {
    if (cancelSignal.aborted) {
      const reason = (await cancelReasonOf(context.runtime, stored.state.runId)) ?? "cancelled";
      return stopAndFinalize(context, stored, reason);
    }
    const action = nextAction(stored.state, tools);
    switch (action.type) {
      case "finished":
        return finalizeRun(context, stored);
      case "call-model": {
        const next = await runModelStep(context, stored.state, tools, cancelSignal);
        if (next === "aborted") continue;
        stored = await saveRun(context, stored, next.state, next.events);
        break;
      }
      case "decide": {
        const verdicts = await evaluateVerdicts(action.calls, tools, {
          userContext: stored.state.request.userContext,
          threadId: stored.state.threadId,
        });
        const applied = applyVerdicts(stored.state, verdicts, now());
        stored = await saveRun(context, stored, applied.state, decisionEvents(applied));
        await addToolJobs(context.runtime, stored.state, applied.dispatched);
        await parkCalls(context.runtime, stored.state, applied.parked, (name) =>
          approvalTtlMsOf(context, name),
        );
        for (const call of applied.parked) context.metrics?.approvalRequested(call.toolName);
        for (const call of settledBy(applied.state, verdicts)) recordSettled(context, call);
        // Just added: nothing to read yet. If they all finish before the move below, it says so.
        mustReadChildren = false;
        break;
      }
      case "wait-children": {
        if (mustReadChildren) {
          mustReadChildren = false;
          const outcomes = await readChildOutcomes(job, context.runtime.options.prefix);
          const next = applyChildResults(
            stored.state,
            outcomes,
            (name) => approvalTtlMsOf(context, name),
            now(),
          );
          if (changed(stored.state, next)) {
            stored = await saveRun(context, stored, { ...next, status: "running" });
            await addToolJobs(context.runtime, stored.state, newlyDispatched(stored.state, action.calls));
            for (const call of newlySettled(action.calls, stored.state)) recordSettled(context, call);
            continue;
          }
          // Children the state expects but Redis lacks (a crash between checkpoint and enqueue): add again.
          await readdMissing(context, stored.state, action.calls);
        }
        const waiting = await job.moveToWaitingChildren(token ?? "");
        if (waiting) throw new WaitingChildrenError();
        mustReadChildren = true;
        break;
      }
      case "settle-step": {
        const settled = settleStep(stored.state, now());
        stored = await saveRun(context, stored, settled, [
          {
            type: "step-settled",
            data: { step: stored.state.stepIndex, endedByTool: settled.endedByTool, phase: settled.phase },
          },
        ]);
        break;
      }
    }
  }
}

async function stopAndFinalize(
  context: IWorkerContext,
  stored: IStoredRun,
  reason: "cancelled" | "timed_out",
) {
  const stopped = stopRun(stored.state, reason, context.runtime.now());
  const saved = await saveRun(context, stored, stopped, []);
  return finalizeRun(context, saved);
}

/** The deadline job: a run past its `timeoutMs` is cancelled as timed_out, wherever it is. */
async function handleDeadline(context: IWorkerContext, job: Job): Promise<unknown> {
  const { runId } = runJobSchema.parse(job.data);
  const stored = await context.runtime.runs.load(runId);
  if (!stored || isTerminal(stored.state)) return { runId, skipped: true };
  await requestCancel(context.runtime, runId, "timed_out");
  return { runId, timedOut: true };
}

function decisionEvents(applied: ReturnType<typeof applyVerdicts>): IRunEventInput[] {
  return [
    ...applied.dispatched.map((call) => ({
      type: "tool-call-dispatched" as const,
      data: { callId: call.callId, toolName: call.toolName },
    })),
    ...applied.parked.map((call) => ({
      type: "tool-call-parked" as const,
      data: {
        callId: call.callId,
        toolName: call.toolName,
        approvalId: call.approvalId,
        reason: call.reason,
      },
    })),
  ];
}

function settledBy(state: TRunState, verdicts: ReadonlyMap<string, unknown>): TPlannedCall[] {
  return (state.step?.calls ?? []).filter((call) => call.state === "settled" && verdicts.has(call.callId));
}

function changed(before: TRunState, after: TRunState): boolean {
  const statesOf = (state: TRunState) => (state.step?.calls ?? []).map((call) => call.state).join(",");
  return statesOf(before) !== statesOf(after);
}

function newlyDispatched(state: TRunState, waitingBefore: readonly TPlannedCall[]): TPlannedCall[] {
  const parkedBefore = new Set(
    waitingBefore.filter((call) => call.state === "parked").map((call) => call.callId),
  );
  return (state.step?.calls ?? []).filter(
    (call) => call.state === "dispatched" && parkedBefore.has(call.callId),
  );
}

function newlySettled(waitingBefore: readonly TPlannedCall[], state: TRunState): TPlannedCall[] {
  const waiting = new Set(waitingBefore.map((call) => call.callId));
  return (state.step?.calls ?? []).filter((call) => call.state === "settled" && waiting.has(call.callId));
}

async function readdMissing(context: IWorkerContext, state: TRunState, calls: readonly TPlannedCall[]) {
  await addToolJobs(
    context.runtime,
    state,
    calls.filter((call) => call.state === "dispatched"),
  );
  await parkCalls(
    context.runtime,
    state,
    calls.filter((call) => call.state === "parked"),
    (name) => approvalTtlMsOf(context, name),
  );
}

function recordSettled(context: IWorkerContext, call: TPlannedCall): void {
  if (!call.result) return;
  const known = context.runtime.gateway.catalogue.has(call.toolName);
  context.metrics?.toolCall({ tool: known ? call.toolName : "(unknown)", outcome: call.result.outcome });
}
