import { endRunOutsideLoop, isTerminal } from "../engine/index.js";
import { TollgateError } from "../errors/index.js";
import type { TCancelReason } from "../store/index.js";
import { runApprovalCommand } from "./approval-interpreter.js";
import { broadcastCancel } from "./cancel-bus.js";
import { promoteJob } from "./promote-job.js";
import { type IRunEndingObserver, runEndingHandlers } from "./run-ending.js";
import { runJobHold, runJobPayloadSwap } from "./run-jobs.js";
import type { ITollgateRuntime } from "./runtime.js";

export type { TCancelReason } from "../store/index.js";

/**
 * Cancels a run from anywhere (a producer, the API, the deadline job). The flag is written first, so a
 * worker that starts the run later still sees it; then every worker aborts its in-flight calls of the run,
 * parked approvals are settled as cancelled and released, and a run waiting for its thread is woken, so
 * the run worker records the final status without another model call. A run that no job holds any more
 * (its job is gone or failed) has no worker to do that: it is ended here, at once, through the same
 * ending as the worker's, counted in `observer` (the metrics of the process that cancels: the API's).
 */
export async function requestCancel(
  runtime: ITollgateRuntime,
  runId: string,
  reason: TCancelReason,
  observer: IRunEndingObserver = {},
): Promise<{ alreadyFinished: boolean }> {
  const stored = await runtime.runs.load(runId);
  if (!stored) throw new TollgateError("TG_RUN_NOT_FOUND", `No run has id ${runId}.`, { runId });
  if (isTerminal(stored.state)) return { alreadyFinished: true };
  await runtime.runs.requestCancel(runId, reason, runJobPayloadSwap(runtime, runId));
  await broadcastCancel(runtime, runId);
  const parked = await runtime.approvals.listPending({ runId });
  for (const approval of parked) {
    // A decision that won meanwhile stands: its approval job hands it to the run.
    await runApprovalCommand({ runtime }, approval, { type: "cancel" }).catch((error: unknown) => {
      if (!TollgateError.isInstance(error) || error.code !== "TG_APPROVAL_DECIDED") throw error;
    });
  }
  if (!(await runJobHold(runtime, runId)).held) {
    // Read again after the job: a run whose worker finished it since the first read is seen finished
    // here (ending it from the stale read would lose the revision race to the worker's final save).
    const current = await runtime.runs.load(runId);
    if (!current || isTerminal(current.state)) return { alreadyFinished: false };
    await endRunOutsideLoop(
      current.state,
      { stop: reason },
      runEndingHandlers(runtime, { ...observer, logger: observer.logger?.child({ runId }) }, { current }),
      runtime.now(),
    );
    return { alreadyFinished: false };
  }
  await promoteJob(runtime.queues.runs, runId);
  return { alreadyFinished: false };
}
