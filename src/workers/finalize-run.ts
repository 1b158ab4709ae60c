import { isTerminal } from "../engine/index.js";
import { promoteJob } from "../runtime/promote-job.js";
import type { IStoredRun } from "../store/index.js";
import type { IWorkerContext } from "./worker-context.js";

/**
 * The run's state is final (and `run-finished` was recorded with it). The run leaves its thread (its
 * messages join the history exactly once) and wakes the thread's next run. Safe to repeat: a worker that
 * died after the final checkpoint finishes the job here on the next activation.
 */
export async function finalizeRun(context: IWorkerContext, stored: IStoredRun): Promise<unknown> {
  const state = stored.state;
  if (!isTerminal(state))
    throw new Error(`finalizeRun called for run ${state.runId} in status ${state.status}`);
  // A run cancelled before it started leaves no trace in the thread's history.
  const messages = state.startedAt === undefined ? [] : state.messages;
  const next = await context.runtime.threads.finishRun(state.threadId, state.runId, messages);
  if (next) await promoteJob(context.runtime.queues.runs, next);
  return { runId: state.runId, status: state.status };
}
