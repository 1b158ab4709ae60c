import type { IGatewayResponse, TCancelReason } from "../contracts/index.js";
import { isTerminal, responseOf } from "../engine/index.js";
import { TollgateError } from "../errors/index.js";
import type { FinishedRuns } from "../runtime/finished-runs.js";
import { requestCancel } from "../runtime/request-cancel.js";
import type { IRunEndingObserver } from "../runtime/run-ending.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";

/**
 * Waits until the run finishes. A timeout or an abort cancels the run (timed_out / cancelled) and then
 * waits, up to cancelGraceMs, for the worker to record that final state. `stopWaiting` only ends the wait
 * (TG_WAIT_TIMEOUT, the run going on): a caller that hung up no longer waits, and never stops the run.
 */
export async function waitForRun(
  runtime: ITollgateRuntime,
  finishedRuns: FinishedRuns,
  runId: string,
  options: {
    abortSignal?: AbortSignal;
    /** Ends the wait, never the run. */
    stopWaiting?: AbortSignal;
    timeoutMs?: number;
    /**
     * The run was created after `finishedRuns` was subscribed: its finish cannot have been missed, so
     * nothing is read before waiting.
     */
    createdAfterSubscribe?: boolean;
    /** Where a run this wait cancels, and ends itself, is counted. */
    runEndings?: IRunEndingObserver;
  },
): Promise<IGatewayResponse> {
  const stop = new AbortController();
  let reason: TCancelReason | undefined;
  const onAbort = () => {
    reason ??= "cancelled";
    stop.abort();
  };
  options.abortSignal?.addEventListener("abort", onAbort, { once: true });
  let stoppedWaiting = false;
  const onStopWaiting = () => {
    stoppedWaiting = true;
    stop.abort();
  };
  options.stopWaiting?.addEventListener("abort", onStopWaiting, { once: true });
  const timer =
    options.timeoutMs !== undefined
      ? setTimeout(() => {
          reason ??= "timed_out";
          stop.abort();
        }, options.timeoutMs)
      : undefined;
  try {
    const finished = await finishedOrStopped(
      runtime,
      finishedRuns,
      runId,
      stop.signal,
      options.createdAfterSubscribe === true,
    );
    if (finished) return finished;
    if (stoppedWaiting && reason === undefined) {
      throw new TollgateError(
        "TG_WAIT_TIMEOUT",
        `Stopped waiting for run ${runId} before it finished; the run goes on.`,
        { runId, stoppedWaiting: true },
      );
    }
    await requestCancel(runtime, runId, reason ?? "cancelled", options.runEndings);
    const afterCancel = await finishedOrStopped(
      runtime,
      finishedRuns,
      runId,
      AbortSignal.timeout(runtime.options.cancelGraceMs),
    );
    if (afterCancel) return afterCancel;
    throw new TollgateError(
      "TG_WAIT_TIMEOUT",
      `Run ${runId} was cancelled but no worker recorded its end within ${runtime.options.cancelGraceMs} ms.`,
      { runId },
    );
  } finally {
    if (timer) clearTimeout(timer);
    options.abortSignal?.removeEventListener("abort", onAbort);
    options.stopWaiting?.removeEventListener("abort", onStopWaiting);
  }
}

async function finishedOrStopped(
  runtime: ITollgateRuntime,
  finishedRuns: FinishedRuns,
  runId: string,
  signal: AbortSignal,
  skipFirstRead = false,
): Promise<IGatewayResponse | undefined> {
  const watch = finishedRuns.watch(runId, signal);
  await watch.ready;
  const read = async () => {
    const stored = await runtime.runs.load(runId);
    if (!stored) throw new TollgateError("TG_RUN_NOT_FOUND", `No run has id ${runId}.`, { runId });
    return isTerminal(stored.state) ? runtime.runs.withOutputs(runId, responseOf(stored.state)) : undefined;
  };
  if (!skipFirstRead) {
    const before = await read();
    if (before) return before;
  }
  const message = await watch.done;
  // The finish message carries the response when it is small: nothing to read or parse then.
  return message?.response ?? read();
}
