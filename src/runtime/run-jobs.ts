import { trace } from "@opentelemetry/api";
import type { JobsOptions } from "bullmq";
import type { TRunState } from "../engine/index.js";
import { jobTraceMetadata } from "../observability/tracing/index.js";
import { deadlineJobIdOf, runJobNames, slimRunJobData, type TRunJob } from "../queue/index.js";
import type { IRunJobPayloadSwap } from "../store/index.js";
import type { ITollgateRuntime } from "./runtime.js";

/** One job of a run, as BullMQ adds it. */
export interface IRunJobSpec {
  name: string;
  data: TRunJob;
  opts: JobsOptions & { jobId: string };
}

/**
 * A queued run's job (and its deadline job). The job id is the run id, so adding it again while it exists
 * is a no-op: a retried submission and the reconciler both add it safely. Given `stateJson` (what the
 * creation stores, the same string), the run job carries it: its first activation starts from it without
 * a read, and its first save checks that it is still the stored state (see RunStore#save).
 */
export function runJobsOf(runtime: ITollgateRuntime, state: TRunState, stateJson?: string): IRunJobSpec[] {
  const ageSeconds = Math.ceil(runtime.options.retentionMs / 1000);
  const data: TRunJob = { schemaVersion: 1, runId: state.runId };
  // Listed, not `{ ...data, state }`: a spread clone given a field it lacks costs a map per run (withFields).
  const runData: TRunJob =
    stateJson === undefined ? data : { schemaVersion: 1, runId: state.runId, state: stateJson };
  const common = { removeOnComplete: { age: ageSeconds }, removeOnFail: { age: ageSeconds } };
  // The run job joins the caller's trace (its span's traceparent, kept with the job); the deadline job,
  // which fires at the timeout, starts a trace of its own linked to it. Nothing while tracing is off.
  const caller = runtime.tracing ? trace.getActiveSpan()?.spanContext() : undefined;
  const runTrace = telemetryOf(jobTraceMetadata(caller));
  const deadlineTrace = telemetryOf(jobTraceMetadata(caller, true));
  const jobs: IRunJobSpec[] = [
    {
      name: runJobNames.run,
      data: runData,
      // Assigned, not spread: a spread clone given fields it lacks costs a map per run (withFields).
      opts: Object.assign({}, common, runTrace, {
        jobId: state.runId,
        attempts: 3,
        backoff: { type: "exponential", delay: runtime.options.jobBackoffMs },
      }),
    },
  ];
  if (state.request.timeoutMs !== undefined) {
    const elapsed = runtime.now() - state.createdAt;
    jobs.push({
      name: runJobNames.deadline,
      data,
      opts: {
        ...common,
        ...deadlineTrace,
        jobId: deadlineJobIdOf(state.runId),
        delay: Math.max(0, state.request.timeoutMs - elapsed),
      },
    });
  }
  return jobs;
}

/**
 * BullMQ's telemetry option carrying `metadata` as given (`omitContext`: BullMQ's own add would put the
 * adding span's context in its place).
 */
function telemetryOf(metadata: string | undefined): Pick<JobsOptions, "telemetry"> {
  return metadata === undefined ? {} : { telemetry: { metadata, omitContext: true } };
}

/** The run job's key and the payload it keeps once it no longer carries the state. */
export function runJobPayloadSwap(runtime: ITollgateRuntime, runId: string): IRunJobPayloadSwap {
  return { key: runtime.queues.runs.toKey(runId), slimData: slimRunJobData(runId) };
}

/** Adds a queued run's jobs on their own (the reconciler's way; a new run's are added with it). */
export async function addRunJobs(runtime: ITollgateRuntime, state: TRunState): Promise<void> {
  for (const job of runJobsOf(runtime, state)) await runtime.queues.runs.add(job.name, job.data, job.opts);
}

/** Job states in which a job still holds its run: it will run, runs, or waits for its children. */
const holdingStates = new Set(["waiting", "active", "delayed", "waiting-children", "prioritized", "paused"]);

/**
 * Whether a job still holds the run. Missing, failed or completed: nobody will move the run any more.
 * Returns the job's state too, for the log.
 */
export async function runJobHold(
  runtime: ITollgateRuntime,
  runId: string,
): Promise<{ held: boolean; jobState: string }> {
  const jobState = await runtime.queues.runs.getJobState(runId);
  return { held: holdingStates.has(jobState), jobState };
}
