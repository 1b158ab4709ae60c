import type { TRunEventInput } from "../contracts/index.js";
import type { IThreadRelease, TRunState } from "../engine/index.js";
import { deadlineJobIdOf } from "../queue/index.js";
import type { IStoredRun } from "../store/index.js";
import { promoteJob } from "./promote-job.js";
import type { ITollgateRuntime } from "./runtime.js";

/**
 * The Redis side of every ending: the final save and the release from the thread in one atomic step,
 * then the thread's next run woken and the run's deadline job removed. Safe to repeat.
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
  await Promise.all([wakeNext, dropDeadline]);
  return finished.stored;
}
