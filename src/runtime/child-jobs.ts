import { trace } from "@opentelemetry/api";
import type { JobsOptions } from "bullmq";
import type { IParkSpec, IToolJobRun, IToolJobSpec, TRunState } from "../engine/index.js";
import { jobTraceMetadata } from "../observability/tracing/index.js";
import { queueNames, type TApprovalJob, type TToolJobInput } from "../queue/index.js";
import { promoteJob } from "./promote-job.js";
import type { ITollgateRuntime } from "./runtime.js";

/**
 * Child jobs of a run. Ids are deterministic (the call id, the approval id), so adding them again after a
 * crash is a no-op. A child that fails after its attempts must not leave its parent waiting forever, so it
 * is an ignored dependency: the parent resumes and reads the failure (never `removeOnFail: true` on
 * children: the parent would never be released).
 */
function childOptions(runtime: ITollgateRuntime, runId: string, jobId: string): JobsOptions {
  const ageSeconds = Math.ceil(runtime.options.retentionMs / 1000);
  return {
    jobId,
    parent: { id: runId, queue: `${runtime.options.prefix}:${queueNames.runs}` },
    ignoreDependencyOnFailure: true,
    removeOnComplete: { age: ageSeconds },
    removeOnFail: { age: ageSeconds },
  };
}

export function toolJobRunOf(state: TRunState): IToolJobRun {
  return {
    runId: state.runId,
    threadId: state.threadId,
    userContext: state.request.userContext,
    additionalTools: state.request.additionalTools,
    ...(state.request.tools ? { tools: state.request.tools } : {}),
    ...(state.toolListHash !== undefined ? { toolListHash: state.toolListHash } : {}),
  };
}

/** A tool job as BullMQ adds it. */
export interface IToolJob {
  name: string;
  data: TToolJobInput;
  opts: JobsOptions & { jobId: string };
}

/** The tool jobs of these calls, children of the run (ids are the call ids). */
export function toolJobsOf(
  runtime: ITollgateRuntime,
  run: IToolJobRun,
  calls: readonly IToolJobSpec[],
): IToolJob[] {
  const scheduledAt = runtime.now();
  const approvedCallTrace = approvedCallTelemetry(runtime);
  return calls.map((call) => {
    const data: TToolJobInput = {
      schemaVersion: 2,
      runId: run.runId,
      threadId: run.threadId,
      callId: call.callId,
      toolName: call.toolName,
      rawInput: call.rawInput,
      userContext: run.userContext,
      additionalTools: run.additionalTools,
      scheduledAt,
      ...(run.tools ? { tools: run.tools } : {}),
      ...(run.toolListHash !== undefined ? { toolListHash: run.toolListHash } : {}),
      ...(call.approvalId !== undefined ? { approvalId: call.approvalId } : {}),
    };
    return {
      name: call.toolName,
      data,
      opts: {
        ...childOptions(runtime, run.runId, call.callId),
        ...(call.approvalId !== undefined ? approvedCallTrace : {}),
        jobId: call.callId,
        attempts: runtime.options.toolJobAttempts,
        backoff: { type: "exponential", delay: runtime.options.jobBackoffMs },
      },
    };
  });
}

/** Adds tool jobs as children of the run (ids are the call ids: adding one again is a no-op). */
export async function addToolJobs(
  runtime: ITollgateRuntime,
  run: IToolJobRun,
  calls: readonly IToolJobSpec[],
): Promise<void> {
  if (calls.length === 0) return;
  const jobs = toolJobsOf(runtime, run, calls);
  // One call (the usual step, and every approved call): a plain add. addBulk builds an ioredis pipeline,
  // which copies each of BullMQ's 64 scripts onto itself: about 50 µs of CPU, more than the write it saves.
  const [only] = jobs;
  if (jobs.length === 1 && only) await runtime.queues.tools.add(only.name, only.data, only.opts);
  else await runtime.queues.tools.addBulk(jobs);
}

/**
 * An approved call's tool job carries the active span's context as it is (the decision's `resume_run`),
 * not BullMQ's `add` span's: the approval job hands the same context to the run, whose resumption joins
 * the call's trace under that span. Nothing while tracing is off.
 */
function approvedCallTelemetry(runtime: ITollgateRuntime): Pick<JobsOptions, "telemetry"> {
  const metadata = runtime.tracing ? jobTraceMetadata(trace.getActiveSpan()?.spanContext()) : undefined;
  return metadata === undefined ? {} : { telemetry: { metadata, omitContext: true } };
}

/**
 * Parks calls: the approval record first, announced with `tool-call-parked` in the same atomic step (so
 * whoever reads the event can decide at once), then the delayed job that holds no worker.
 */
export async function parkCalls(runtime: ITollgateRuntime, calls: readonly IParkSpec[]): Promise<void> {
  // The approval job runs at the decision, maybe hours from now: it starts a trace of its own, linked to
  // the one that parked it, rather than stretching this one (BullMQ keeps the link mark with the job).
  const link = runtime.tracing ? jobTraceMetadata(trace.getActiveSpan()?.spanContext(), true) : undefined;
  for (const { record, announce, delayMs } of calls) {
    await runtime.approvals.create(record, announce);
    // The job's id is the approval's id; its record holds the rest.
    const data: TApprovalJob = { schemaVersion: 2 };
    await runtime.queues.approvals.add(record.toolName, data, {
      ...childOptions(runtime, record.runId, record.approvalId),
      delay: delayMs,
      ...(link !== undefined ? { telemetry: { metadata: link, omitContext: true } } : {}),
      attempts: 5,
      backoff: { type: "exponential", delay: runtime.options.jobBackoffMs },
    });
    // A human may decide between the record appearing and the job being added: that decision found no
    // job to wake, so wake it now instead of letting it wait out the TTL.
    const approval = await runtime.approvals.get(record.approvalId);
    if (approval && approval.status !== "pending")
      await promoteJob(runtime.queues.approvals, record.approvalId);
  }
}
