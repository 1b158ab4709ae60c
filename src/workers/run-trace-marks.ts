import { trace } from "@opentelemetry/api";
import type { Job } from "bullmq";
import { jobTraceMetadata, readJobTraceMetadata } from "../observability/tracing/index.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";

/*
 * A run job keeps its trace context with it (BullMQ's `opts.telemetry.metadata`), and BullMQ starts each
 * activation's `process` span from it. A run that parks a call for approval may resume hours later: its
 * context is then rewritten to a link mark, so the resuming activation starts a trace of its own, linked
 * to the one that parked it; that activation writes its own context back, so the rest of the run joins
 * the new trace. Only while tracing is on, and only for runs that park: a write at the park, one at the
 * resume, on the job this worker holds the lock of.
 */

/** The job's stored context becomes the active span's, as a link mark (parked) or plainly (resumed). */
export async function markRunJobTrace(runtime: ITollgateRuntime, job: Job, link: boolean): Promise<void> {
  const metadata = jobTraceMetadata(trace.getActiveSpan()?.spanContext(), link);
  if (metadata === undefined || job.id === undefined) return;
  const jobKey = `${job.queueQualifiedName}:${job.id}`;
  const stored = await runtime.redis.hget(jobKey, "opts");
  if (stored === null) return;
  const options = JSON.parse(stored) as Record<string, unknown>;
  options.tm = metadata;
  // BullMQ's own add (the reconciler's) must not put its context in place of this one.
  options.omc = true;
  await runtime.redis.hset(jobKey, "opts", JSON.stringify(options));
}

/** Whether this activation began from a link mark: the run resumed after a parked call. */
export function resumedFromLink(job: Job): boolean {
  return readJobTraceMetadata(job.opts.telemetry?.metadata)?.link === true;
}
