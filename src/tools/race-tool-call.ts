import type { IClock } from "./clock.js";

/** How waiting for one tool call ended. */
export type TToolCallRace =
  | { kind: "returned"; output: unknown }
  | { kind: "threw"; error: unknown }
  /** `reason` is what the tool's signal was aborted with. */
  | { kind: "timed_out"; reason: unknown }
  | { kind: "cancelled" };

/**
 * Runs `start` with a signal that is aborted at `timeoutMs` or when `callerSignal` aborts, and stops waiting
 * at that moment even when the tool ignores the signal (design decision D60: a tool's own timeout and output
 * cap): an abort never undoes what the tool did, and a tool that keeps running does so without anyone waiting
 * for it. Never rejects.
 */
export function raceToolCall(args: {
  start: (abortSignal: AbortSignal) => Promise<unknown>;
  timeoutMs: number;
  callerSignal?: AbortSignal | undefined;
  clock: IClock;
}): Promise<TToolCallRace> {
  const { start, timeoutMs, callerSignal, clock } = args;
  if (callerSignal?.aborted) {
    return Promise.resolve({ kind: "cancelled" });
  }
  const controller = new AbortController();
  let timer: unknown;
  let detachFromCaller = (): void => {};
  const race = new Promise<TToolCallRace>((resolve) => {
    // Settle first, then abort: a tool that rejects on abort must not turn a timeout into an error.
    timer = clock.setTimeout(() => {
      const reason = new DOMException(`The tool did not answer within ${timeoutMs} ms.`, "TimeoutError");
      resolve({ kind: "timed_out", reason });
      controller.abort(reason);
    }, timeoutMs);
    if (callerSignal !== undefined) {
      const onCallerAbort = (): void => {
        resolve({ kind: "cancelled" });
        controller.abort(callerSignal.reason);
      };
      callerSignal.addEventListener("abort", onCallerAbort, { once: true });
      detachFromCaller = () => callerSignal.removeEventListener("abort", onCallerAbort);
    }
    // The executor catches a tool that throws before returning its promise.
    new Promise<unknown>((resolveStart) => resolveStart(start(controller.signal))).then(
      (output) => resolve({ kind: "returned", output }),
      (error: unknown) => resolve({ kind: "threw", error }),
    );
  });
  return race.finally(() => {
    clock.clearTimeout(timer);
    detachFromCaller();
  });
}
