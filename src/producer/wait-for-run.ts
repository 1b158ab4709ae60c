import type { IGatewayResponse } from "../contracts/index.js";
import { isTerminal, responseOf } from "../engine/index.js";
import { TollgateError } from "../errors/index.js";
import { requestCancel } from "../runtime/request-cancel.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";

/**
 * Follows the run's events until it finishes. A timeout or an abort cancels the run (timed_out /
 * cancelled) and then waits, up to cancelGraceMs, for the worker to record that final state.
 */
export async function waitForRun(
  runtime: ITollgateRuntime,
  runId: string,
  options: { abortSignal?: AbortSignal; timeoutMs?: number },
): Promise<IGatewayResponse> {
  const stop = new AbortController();
  let reason: "cancelled" | "timed_out" | undefined;
  const onAbort = () => {
    reason ??= "cancelled";
    stop.abort();
  };
  options.abortSignal?.addEventListener("abort", onAbort, { once: true });
  const timer =
    options.timeoutMs !== undefined
      ? setTimeout(() => {
          reason ??= "timed_out";
          stop.abort();
        }, options.timeoutMs)
      : undefined;
  try {
    const finished = await followUntilFinished(runtime, runId, stop.signal);
    if (finished) return finished;
    await requestCancel(runtime, runId, reason ?? "cancelled");
    const grace = AbortSignal.timeout(runtime.options.cancelGraceMs);
    const afterCancel = await followUntilFinished(runtime, runId, grace);
    if (afterCancel) return afterCancel;
    throw new TollgateError(
      "TG_WAIT_TIMEOUT",
      `Run ${runId} was cancelled but no worker recorded its end within ${runtime.options.cancelGraceMs} ms.`,
      { runId },
    );
  } finally {
    if (timer) clearTimeout(timer);
    options.abortSignal?.removeEventListener("abort", onAbort);
  }
}

async function followUntilFinished(
  runtime: ITollgateRuntime,
  runId: string,
  signal: AbortSignal,
): Promise<IGatewayResponse | undefined> {
  const connection = runtime.duplicateConnection();
  const onAbort = () => connection.disconnect();
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    // The state first: a run that finished before we started following has no new events to wait for.
    const stored = await runtime.runs.load(runId);
    if (!stored) throw new TollgateError("TG_RUN_NOT_FOUND", `No run has id ${runId}.`, { runId });
    if (isTerminal(stored.state)) return responseOf(stored.state);
    for await (const event of runtime.events.follow(connection, runId, { signal, blockMs: 5_000 })) {
      if (event.type === "run-finished") {
        const final = await runtime.runs.load(runId);
        if (final && isTerminal(final.state)) return responseOf(final.state);
      }
    }
    return undefined;
  } catch (error) {
    if (signal.aborted) return undefined;
    throw error;
  } finally {
    signal.removeEventListener("abort", onAbort);
    connection.disconnect();
  }
}
