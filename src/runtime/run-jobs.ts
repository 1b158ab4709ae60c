import type { TRunState } from "../engine/index.js";
import { deadlineJobIdOf, runJobNames, type TRunJob } from "../queue/index.js";
import type { ITollgateRuntime } from "./runtime.js";

/**
 * Adds a queued run's job (and its deadline job). The job id is the run id, so adding it again while it
 * exists is a no-op: a retried submission and the reconciler both call this safely.
 */
export async function addRunJobs(runtime: ITollgateRuntime, state: TRunState): Promise<void> {
  const ageSeconds = Math.ceil(runtime.options.retentionMs / 1000);
  const data: TRunJob = { schemaVersion: 1, runId: state.runId };
  const common = { removeOnComplete: { age: ageSeconds }, removeOnFail: { age: ageSeconds } };
  await runtime.queues.runs.add(runJobNames.run, data, {
    ...common,
    jobId: state.runId,
    attempts: 3,
    backoff: { type: "exponential", delay: runtime.options.jobBackoffMs },
  });
  if (state.request.timeoutMs !== undefined) {
    const elapsed = runtime.now() - state.createdAt;
    await runtime.queues.runs.add(runJobNames.deadline, data, {
      ...common,
      jobId: deadlineJobIdOf(state.runId),
      delay: Math.max(0, state.request.timeoutMs - elapsed),
    });
  }
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
