import { APIUserAbortError } from "openai";

/**
 * Settles with the promise, or rejects with the SDK's APIUserAbortError as soon as the signal aborts.
 *
 * Why: the SDK aborts a request in flight at once, but it sleeps between retries without watching
 * the signal, and it honours `retry-after` headers of any length. A cancelled run must not wait
 * for that sleep. The SDK's own promise is left to settle on its own; it is already handled here.
 */
export function raceWithAbort<TValue>(
  promise: Promise<TValue>,
  signal: AbortSignal | undefined,
): Promise<TValue> {
  if (signal === undefined) {
    return promise;
  }
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(new APIUserAbortError());
  }
  return new Promise<TValue>((resolve, reject) => {
    const onAbort = (): void => reject(new APIUserAbortError());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
