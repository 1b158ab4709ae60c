import { type TRunEventInput, tenantOf } from "../contracts/index.js";
import type { IThreadRelease, TRunState } from "../engine/index.js";
import { deadlineJobIdOf } from "../queue/index.js";
import type { IStoredRun } from "../store/index.js";
import { promoteJob } from "./promote-job.js";
import type { ITollgateRuntime } from "./runtime.js";

/**
 * The Redis side of every ending: the final save and the release from the thread in one atomic step,
 * then the thread's next run woken, the run's deadline job removed, and its tenant's running slot given
 * back (waking a run that waits for one). Safe to repeat.
 */
export async function finishAndWake(
  runtime: ITollgateRuntime,
  stored: IStoredRun,
  state: TRunState,
  events: TRunEventInput[],
  release: IThreadRelease,
  save: boolean,
): Promise<IStoredRun> {
  const finished = await runtime.runs.finish(stored, state, events, release, save);
  const wakeNext = finished.nextRunId ? promoteJob(runtime.queues.runs, finished.nextRunId) : undefined;
  const dropDeadline =
    state.request.timeoutMs !== undefined
      ? runtime.queues.runs.remove(deadlineJobIdOf(state.runId)).catch(() => 0)
      : undefined;
  const freeSlot = releaseTenantSlot(runtime, state);
  await Promise.all([wakeNext, dropDeadline, freeSlot]);
  return finished.stored;
}

async function releaseTenantSlot(runtime: ITollgateRuntime, state: TRunState): Promise<void> {
  const next = await runtime.limits.releaseSlot(tenantOf(state.request), state.runId);
  // The tenant's slots are the deployment's: the run it wakes may be in another partition.
  if (next !== undefined) await promoteJob(runtime.runQueueOf(next), next);
}
