import type { Job } from "bullmq";
import { jobLogger, logContent } from "../observability/index.js";
import { toolJobSchema } from "../queue/index.js";
import {
  cancelledFailure,
  type IToolExecution,
  outputStoredApartChars,
  type TIsolatedToolRunner,
} from "../tools/index.js";
import type { IToolJobResult } from "./child-outcomes.js";
import { type IWorkerContext, runToolsNow, runToolsOf } from "./worker-context.js";

/**
 * A tool call job. ToolRegistry.execute never throws: a tool's error, its timeout (504, signal aborted,
 * not waited for) and a cancellation are results the model reads. Only infrastructure faults (a payload
 * that fails validation, Redis gone) fail the job, which BullMQ retries.
 */
export function createToolProcessor(workerContext: IWorkerContext, runIsolated?: TIsolatedToolRunner) {
  return async (job: Job, _token?: string, jobSignal?: AbortSignal): Promise<IToolJobResult> => {
    const data = toolJobSchema.parse(job.data);
    const logger = jobLogger(workerContext.logger, {
      runId: data.runId,
      threadId: data.threadId,
      callId: data.callId,
      tool: data.toolName,
      queue: "tools",
      jobId: job.id,
    });
    const context = { ...workerContext, logger };
    const startedAt = context.runtime.now();
    const cancellation = context.cancelBus.register(data.runId);
    try {
      let execution: IToolExecution;
      // A cancellation broadcast before this job started was remembered by the bus: no Redis read per call.
      if (cancellation.signal.aborted) {
        execution = { ...cancelledFailure(), durationMs: 0, endsRun: false, input: data.rawInput };
      } else {
        // Not awaited when nothing is read: the tool starts before BullMQ's worker, at this processor's first
        // await, sends its fetch of the next job (parseWithSchema).
        const { registry } = runToolsNow(context, data) ?? (await runToolsOf(context, data));
        // BullMQ's job signal (a job cancelled through BullMQ) stops the call too, through the same signal.
        if (jobSignal) cancellation.follow(jobSignal);
        execution = await registry.execute({
          toolName: data.toolName,
          // As sent: the registry parses it once with the tool's schema, and execute sees that value.
          input: data.rawInput,
          callId: data.callId,
          runId: data.runId,
          threadId: data.threadId,
          userContext: data.userContext,
          abortSignal: cancellation.signal,
          ...(runIsolated ? { runIsolated } : {}),
          // The error's message and data go to the log (never to the model): level warn, with its code.
          onError: (report) =>
            logger.warn(
              { err: report.error, modelText: report.modelText },
              "tool call failed; the model reads modelText",
            ),
        });
      }
      const finishedAt = context.runtime.now();
      context.metrics?.toolExecution({
        tool: data.toolName,
        scheduleToStartSeconds: Math.max(0, startedAt - data.scheduledAt) / 1000,
        executionSeconds: execution.durationMs / 1000,
      });
      // Sent now and not awaited (one round trip less per call): it is written on the runtime's connection
      // before this job's completion is sent on the worker's, and the run moves on only after that
      // completion, an activation and a read of its children, so a follower still hears the call end
      // first. A failed write is logged by announceSettled itself.
      void announceSettled(context, data, execution);
      // An approved call: the input execute received, once, for the record's and the result's three inputs.
      const executed =
        data.approvalId !== undefined ? { executedInput: executedInputOf(execution) } : undefined;
      if (data.approvalId !== undefined)
        await recordOutcome(context, data.approvalId, execution, executed?.executedInput, finishedAt);
      logContent(logger, execution.text, "tool result the model reads");
      logger.info(
        { outcome: execution.outcome, durationMs: execution.durationMs, attempt: job.attemptsMade + 1 },
        "tool call finished",
      );
      const stored = await storeLargeOutputApart(context, data, execution);
      return {
        schemaVersion: 1,
        callId: data.callId,
        // The parsed input may hold values JSON cannot keep (a Date): the run records the input as sent.
        // Assigned, not spread: a spread clone given fields it lacks costs a map per call (withFields).
        execution: Object.assign(
          {},
          stored,
          executed?.executedInput !== undefined
            ? { input: data.rawInput, executedInput: executed.executedInput }
            : { input: data.rawInput },
        ),
        scheduledAt: data.scheduledAt,
        startedAt,
        finishedAt,
      };
    } finally {
      cancellation.release();
    }
  };
}

/**
 * A large output goes to the run's `outputs` key, written once here: otherwise it would sit in this job's
 * return value, in the run job's children values and in the run's state, the last two read (and the state
 * rewritten) at every later activation of the run. A small one stays inline: no extra write per call.
 */
async function storeLargeOutputApart(
  context: IWorkerContext,
  data: { runId: string; callId: string },
  execution: IToolExecution,
): Promise<IToolExecution> {
  const { outputJson, ...rest } = execution;
  if (outputJson === undefined || outputJson.length <= outputStoredApartChars) return rest;
  await context.runtime.runs.keepOutputApart(data.runId, data.callId, outputJson);
  const { output: _output, ...withoutOutput } = rest;
  return { ...withoutOutput, outputStoredApart: true };
}

/**
 * The approval's record gets how the call it let run ended (the decision history shows it). A failed
 * write is logged, never the job's failure: a retry would run the tool again for a line of history.
 */
async function recordOutcome(
  context: IWorkerContext,
  approvalId: string,
  execution: IToolExecution,
  executedInput: unknown,
  finishedAt: number,
): Promise<void> {
  const ok = execution.outcome === "ok";
  const code =
    execution.errorCode !== undefined ? String(execution.errorCode) : ok ? undefined : execution.outcome;
  try {
    await context.runtime.approvals.recordOutcome(approvalId, {
      ok,
      finishedAt,
      ...(executedInput !== undefined ? { executedInput } : {}),
      ...(execution.status !== undefined ? { status: execution.status } : {}),
      ...(code !== undefined ? { code } : {}),
    });
  } catch (error) {
    context.logger.warn({ err: error, approvalId }, "the approved call's outcome was not recorded");
  }
}

/**
 * `tool-call-settled` on the run's events. A failed write is logged, never the job's failure: a retry
 * would run the tool again for an event (the run's response has the call's outcome either way).
 */
async function announceSettled(
  context: IWorkerContext,
  data: { runId: string; callId: string; toolName: string },
  execution: IToolExecution,
): Promise<void> {
  const ok = execution.outcome === "ok";
  const errorCode =
    execution.errorCode !== undefined ? String(execution.errorCode) : ok ? undefined : execution.outcome;
  try {
    await context.runtime.runs.appendEvent(data.runId, {
      type: "tool-call-settled",
      data: {
        callId: data.callId,
        toolName: data.toolName,
        ok,
        durationMs: Math.round(execution.durationMs),
        ...(errorCode !== undefined ? { errorCode } : {}),
      },
    });
  } catch (error) {
    context.logger.warn({ err: error }, "tool-call-settled not written to the run's events");
  }
}

/** Outcomes whose `execute` was called: the input it received is the parsed one. */
const executedOutcomes: ReadonlySet<string> = new Set(["ok", "error", "timeout"]);

/**
 * The input `execute` received (after the tool's schema: defaults filled, unknown keys stripped), as JSON,
 * for the approval's three inputs; undefined when execute never ran or JSON cannot hold the value.
 */
function executedInputOf(execution: IToolExecution): unknown {
  if (!executedOutcomes.has(execution.outcome)) return undefined;
  try {
    const json = JSON.stringify(execution.input);
    return json === undefined ? undefined : JSON.parse(json);
  } catch {
    return undefined;
  }
}
