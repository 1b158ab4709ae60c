import { trace } from "@opentelemetry/api";
import type { Job } from "bullmq";
import { jobTraceMetadata, readJobTraceMetadata } from "../observability/tracing/index.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import { writeStoredJobTrace } from "../runtime/stored-job-trace.js";

/*
 * A run job keeps its trace context with it (BullMQ's `opts.telemetry.metadata`), and BullMQ starts each
 * activation's `process` span from it. A run that parks a call for approval may resume hours later: its
 * context is then rewritten to a link mark, so the resuming activation starts a trace of its own, linked
 * to the one that parked it; or, once an approved call's decision was traced, to that decision's
 * `resume_run` span (the approval job writes it), which the resuming activation joins. That activation
 * writes its own context back, so the rest of the run joins the new trace. Only while tracing is on, and
 * only for runs that park: a write at the park, one at the resume, on a job no other worker holds.
 */

/** The job's stored context becomes the active span's, as a link mark (parked) or plainly (resumed). */
export async function markRunJobTrace(runtime: ITollgateRuntime, job: Job, link: boolean): Promise<void> {
  const metadata = jobTraceMetadata(trace.getActiveSpan()?.spanContext(), link);
  if (metadata === undefined || job.id === undefined) return;
  await writeStoredJobTrace(runtime, `${job.queueQualifiedName}:${job.id}`, metadata);
}

/** Whether this activation resumes the run after a parked call (a link mark, or a decision's context). */
export function resumedAfterApproval(job: Job): boolean {
  const metadata = readJobTraceMetadata(job.opts.telemetry?.metadata);
  return metadata?.link === true || metadata?.resumed === true;
}
