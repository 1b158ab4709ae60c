import type { TRunEventInput } from "../contracts/index.js";
import { type IThreadRelease, isTerminal, responseOf, type TRunState } from "../engine/index.js";
import { finishAndWake } from "../runtime/finish-and-wake.js";
import type { IStoredRun } from "../store/index.js";
import type { IWorkerContext } from "./worker-context.js";

/**
 * Every ending of a run goes through here, whatever ended it (an answer, a failure, a cancellation, a job
 * that failed for good, a head of a thread found finished): the final state is saved with `run-finished`
 * and the run leaves its thread in one atomic step, then the thread's next run is woken and the run's
 * deadline job, if any, is removed, and its tenant's running slot is given back (waking a run that waits
 * for one). Safe to repeat: a finish retried after a crash appends nothing twice.
 */
export async function endRun(
  context: IWorkerContext,
  stored: IStoredRun,
  state: TRunState,
  events: TRunEventInput[],
  release: IThreadRelease,
  save: boolean,
): Promise<IStoredRun> {
  const finished = await finishAndWake(context.runtime, stored, state, events, release, save);
  if (save && isTerminal(state) && !isTerminal(stored.state)) recordFinished(context, state);
  return finished;
}

function recordFinished(context: IWorkerContext, state: TRunState): void {
  const response = responseOf(state);
  // From the run's start (its time in a worker), not from enqueue: queueing is its own histogram.
  const durationSeconds =
    ((state.finishedAt ?? context.runtime.now()) - (state.startedAt ?? state.createdAt)) / 1000;
  context.metrics?.runFinished(response.status, durationSeconds, response.steps);
  context.logger.info(
    {
      status: state.status,
      steps: response.steps,
      stopReason: response.stopReason,
      endedByTool: response.endedByTool,
    },
    "run finished",
  );
}
