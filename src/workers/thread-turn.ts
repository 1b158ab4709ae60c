import type { Job } from "bullmq";
import { endRunOutsideLoop, isTerminal, type TRunState } from "../engine/index.js";
import { threadOfRun } from "../store/index.js";
import { endingHandlers } from "./run-effect-handlers.js";
import type { IWorkerContext } from "./worker-context.js";

/**
 * Runs of one thread execute one after the other, in submission order. A run may start only at the head
 * of its thread's queue. Otherwise it parks itself as a delayed job; the run ahead of it promotes it when
 * it finishes. The check after parking closes the race with a finish that happened in between, and the
 * recheck delay bounds the wait should a wake-up ever be lost.
 */
export async function waitForThreadTurn(
  context: IWorkerContext,
  job: Job,
  token: string | undefined,
  state: TRunState,
): Promise<boolean> {
  const { threads } = context.runtime;
  if (await isMyTurn(context, state)) return true;
  await job.moveToDelayed(context.runtime.now() + context.runtime.options.threadRecheckMs, token);
  if ((await threads.headRun(threadOfRun(state))) === state.runId) {
    await job.promote().catch(() => undefined);
  }
  return false;
}

async function isMyTurn(context: IWorkerContext, state: TRunState): Promise<boolean> {
  const { threads, runs } = context.runtime;
  for (;;) {
    const head = await threads.headRun(threadOfRun(state));
    if (head === undefined || head === state.runId) return true;
    const headRun = await runs.load(head);
    // A head that finished but was never released (its worker died after the final save) or whose state
    // is gone must not block the thread: it is released the way every ending releases a run.
    if (headRun && !isTerminal(headRun.state)) return false;
    if (headRun) {
      await endRunOutsideLoop(
        headRun.state,
        { stop: "cancelled" },
        endingHandlers(context, { current: headRun }),
        context.runtime.now(),
      );
    } else {
      await threads.finishRun(threadOfRun(state), head, []);
    }
  }
}
