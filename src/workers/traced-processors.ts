import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Job } from "bullmq";
import {
  APPROVAL_WAIT_SPAN,
  GEN_AI,
  GEN_AI_OPERATIONS,
  type ITracing,
  readJobTraceMetadata,
  resumedRunTraceMetadata,
  spanContextOf,
  TOLLGATE_ATTRIBUTES,
} from "../observability/tracing/index.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import { readStoredJobTrace, writeStoredJobTrace } from "../runtime/stored-job-trace.js";
import type { IApprovalJobResult, IToolJobResult } from "./child-outcomes.js";
import { withArityOf } from "./processor-arity.js";
import { markRunJobTrace, resumedAfterApproval } from "./run-trace-marks.js";

type TProcessor<TResult> = (job: Job, token?: string, signal?: AbortSignal) => Promise<TResult>;

/*
 * The processors with spans, used only while tracing is on (start-worker.ts wraps them): BullMQ's
 * `process` span is active around each, from the context the job carries.
 */

/** A run activation: its ids on BullMQ's span; a resumed one writes its new trace back to the job. */
export function tracedRunProcessor<TResult>(
  runtime: ITollgateRuntime,
  processor: TProcessor<TResult>,
): TProcessor<TResult> {
  return withArityOf<TProcessor<TResult>>(processor, async (job, token, signal) => {
    const span = trace.getActiveSpan();
    const runId = (job.data as { runId?: unknown } | undefined)?.runId;
    const resumed = resumedAfterApproval(job);
    span?.setAttributes({
      ...(typeof runId === "string" ? { [TOLLGATE_ATTRIBUTES.runId]: runId } : {}),
      [TOLLGATE_ATTRIBUTES.activation]: job.attemptsStarted,
      [TOLLGATE_ATTRIBUTES.resumedAfterApproval]: resumed,
    });
    // The rest of the run joins the trace this activation started.
    if (resumed) await markRunJobTrace(runtime, job, false);
    return processor(job, token, signal);
  });
}

/** A tool job in `execute_tool <tool>` (GenAI conventions), its outcome on the span. */
export function tracedToolProcessor(
  tracing: ITracing,
  processor: TProcessor<IToolJobResult>,
): TProcessor<IToolJobResult> {
  return withArityOf<TProcessor<IToolJobResult>>(processor, (job, token, signal) => {
    const data = (job.data ?? {}) as {
      toolName?: unknown;
      callId?: unknown;
      runId?: unknown;
      rawInput?: unknown;
    };
    const toolName = typeof data.toolName === "string" ? data.toolName : job.name;
    return tracing.inSpan(
      `${GEN_AI_OPERATIONS.executeTool} ${toolName}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          [GEN_AI.operationName]: GEN_AI_OPERATIONS.executeTool,
          [GEN_AI.toolName]: toolName,
          [GEN_AI.toolType]: "function",
          ...(typeof data.callId === "string" ? { [GEN_AI.toolCallId]: data.callId } : {}),
          ...(typeof data.runId === "string" ? { [TOLLGATE_ATTRIBUTES.runId]: data.runId } : {}),
          [TOLLGATE_ATTRIBUTES.toolAttempt]: job.attemptsStarted,
          ...(tracing.captureMessageContent ? { [GEN_AI.toolCallArguments]: jsonOf(data.rawInput) } : {}),
        },
      },
      async (span) => {
        const result = await processor(job, token, signal);
        const { execution } = result;
        span.setAttribute(TOLLGATE_ATTRIBUTES.toolOutcome, execution.outcome);
        if (tracing.captureMessageContent) span.setAttribute(GEN_AI.toolCallResult, execution.text);
        if (execution.outcome !== "ok") {
          // A failed call is data for the model, not a failed job; the span says it failed all the same.
          span.setAttribute(GEN_AI.errorType, String(execution.errorCode ?? execution.outcome));
          span.setStatus({ code: SpanStatusCode.ERROR, message: execution.outcome });
        }
        return result;
      },
    );
  });
}

/**
 * An approval job: once it has handed the decision over, the wait is recorded as a span of its own,
 * from the park (the job's creation) to the decision, in a trace of its own linked to the run's: a
 * wait of hours never stretches a trace holding anything else. An approved call's tool job carries the
 * trace its decision started (`resume_run`): the run's job gets it too, before this job completes (so
 * before the run can resume), and the run's resumption joins the call in that trace.
 */
export function tracedApprovalProcessor(
  runtime: ITollgateRuntime,
  tracing: ITracing,
  processor: TProcessor<IApprovalJobResult>,
): TProcessor<IApprovalJobResult> {
  return withArityOf<TProcessor<IApprovalJobResult>>(processor, async (job, token, signal) => {
    const result = await processor(job, token, signal);
    const { approval } = result;
    const resumedIn =
      approval.decision === "approved" ? await resumeRunInCallTrace(runtime, job, result) : undefined;
    const parked = spanContextOf(readJobTraceMetadata(job.opts.telemetry?.metadata)?.traceparent);
    const links = [parked, resumedIn].filter((link) => link !== undefined).map((link) => ({ context: link }));
    const waitMs = Math.max(0, approval.decidedAt - job.timestamp);
    const span = tracing.tracer.startSpan(`${APPROVAL_WAIT_SPAN} ${job.name}`, {
      kind: SpanKind.INTERNAL,
      root: true,
      startTime: job.timestamp,
      links,
      attributes: {
        [GEN_AI.toolName]: job.name,
        [GEN_AI.toolCallId]: result.callId,
        ...(job.id !== undefined ? { [TOLLGATE_ATTRIBUTES.approvalId]: job.id } : {}),
        [TOLLGATE_ATTRIBUTES.approvalDecision]: approval.decision,
        ...(approval.approver !== undefined
          ? { [TOLLGATE_ATTRIBUTES.approvalApprover]: approval.approver }
          : {}),
        [TOLLGATE_ATTRIBUTES.approvalWaitMs]: waitMs,
      },
    });
    span.end(Math.max(job.timestamp, approval.decidedAt));
    return result;
  });
}

/**
 * The approved call's tool job's trace, when its decision started one (a context of its own, not a link
 * mark), written to the parked run's job; the trace's span context, for the wait's link.
 */
async function resumeRunInCallTrace(runtime: ITollgateRuntime, job: Job, result: IApprovalJobResult) {
  if (job.parentKey === undefined) return undefined;
  const callTrace = await readStoredJobTrace(runtime, runtime.queues.tools.toKey(result.callId));
  if (callTrace === undefined || callTrace.link === true) return undefined;
  const resumedIn = spanContextOf(callTrace.traceparent);
  if (resumedIn === undefined) return undefined;
  await writeStoredJobTrace(runtime, job.parentKey, resumedRunTraceMetadata(callTrace.traceparent));
  return resumedIn;
}

function jsonOf(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return String(value);
  }
}
