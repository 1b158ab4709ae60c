import { TollgateError } from "../errors/index.js";
import type { IThreadRef } from "../store/index.js";
import { requestCancel } from "./request-cancel.js";
import type { IRunEndingObserver } from "./run-ending.js";
import type { ITollgateRuntime } from "./runtime.js";

export interface IDeletedThread {
  threadId: string;
  /** Runs whose state and events were deleted with the thread. */
  deletedRuns: number;
  /** Runs that were queued or running and were cancelled first (force only). */
  cancelledRuns: number;
}

/**
 * Deletes a thread and every run it had (a data-protection request): history, run lists, run states and
 * events. A thread with a run queued or running is refused unless forced; forced, those runs are cancelled
 * first, so their workers stop and write nothing back (their saves find the state gone and stop).
 */
export async function deleteThread(
  runtime: ITollgateRuntime,
  thread: IThreadRef,
  force: boolean,
  /** Where the runs this cancels and ends itself are counted. */
  observer: IRunEndingObserver = {},
): Promise<IDeletedThread> {
  const { threadId } = thread;
  // Another tenant's thread stored before thread ids were scoped is not the default tenant's to delete.
  if (await runtime.threads.heldByAnotherTenant(thread))
    return { threadId, deletedRuns: 0, cancelledRuns: 0 };
  let cancelledRuns = 0;
  if (force) {
    const waiting = await runtime.redis.lrange(runtime.keys.threadRuns(thread), 0, -1);
    for (const runId of waiting) {
      const cancelled = await requestCancel(runtime, runId, "cancelled", observer).catch((error: unknown) => {
        // A run listed on the thread whose state is gone has nothing to cancel.
        if (TollgateError.isInstance(error) && error.code === "TG_RUN_NOT_FOUND") return undefined;
        throw error;
      });
      if (cancelled && !cancelled.alreadyFinished) cancelledRuns += 1;
    }
  }
  const deleted = await runtime.threads.delete(thread, force);
  if (deleted.refusedWithRuns > 0) {
    throw new TollgateError(
      "TG_THREAD_BUSY",
      `Thread ${threadId} has ${deleted.refusedWithRuns} run(s) queued or running; cancel them or delete with force=true.`,
      { threadId },
    );
  }
  return { threadId, deletedRuns: deleted.runIds.length, cancelledRuns };
}
