import { trace } from "@opentelemetry/api";
import type { JobsOptions } from "bullmq";
import type { IToolJobRun, IToolJobSpec, TRunState } from "../engine/index.js";
import { jobTraceMetadata } from "../observability/tracing/index.js";
import { queueNames, type TToolJobInput } from "../queue/index.js";
import type { ITollgateRuntime } from "./runtime.js";

/**
 * Child jobs of a run. Ids are deterministic (the call id, the approval id), so adding them again after a
 * crash is a no-op. A child that fails after its attempts must not leave its parent waiting forever, so it
 * is an ignored dependency: the parent resumes and reads the failure (never `removeOnFail: true` on
 * children: the parent would never be released).
 */
export function childOptions(runtime: ITollgateRuntime, runId: string, jobId: string): JobsOptions {
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
      // Assigned, not spread: a spread clone given fields it lacks costs a map per job (withFields).
      opts: Object.assign(
        {},
        childOptions(runtime, run.runId, call.callId),
        call.approvalId !== undefined ? approvedCallTrace : {},
        {
          jobId: call.callId,
          attempts: runtime.options.toolJobAttempts,
          backoff: { type: "exponential", delay: runtime.options.jobBackoffMs },
        },
      ),
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
