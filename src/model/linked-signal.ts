/** A signal that follows other signals until released. */
export interface ILinkedSignal {
  signal: AbortSignal;
  /** Detaches the signal from its sources; call it once the work that used the signal is over. */
  release(): void;
}

/**
 * A signal that aborts when any of `sources` aborts, with that source's reason.
 *
 * Why not `AbortSignal.any`: on Node 20 a signal made by `AbortSignal.any` that is given an abort
 * listener is kept in a module-level set until it aborts, whatever else still refers to it. The openai
 * SDK adds such a listener to the signal of every request and never removes it, and a tool may do the
 * same with its `abortSignal`: each model call and tool call then stayed in the worker's heap for good,
 * about 4 KB per run. This signal is a plain controller's: it lives as long as someone refers to it, and
 * `release` removes the only references its sources hold.
 */
export function linkedSignal(sources: readonly AbortSignal[]): ILinkedSignal {
  const controller = new AbortController();
  const alreadyAborted = sources.find((source) => source.aborted);
  if (alreadyAborted) {
    controller.abort(alreadyAborted.reason);
    return { signal: controller.signal, release: () => undefined };
  }
  const release = () => {
    for (const source of sources) source.removeEventListener("abort", onAbort);
  };
  function onAbort(this: AbortSignal): void {
    release();
    controller.abort(this.reason);
  }
  for (const source of sources) source.addEventListener("abort", onAbort, { once: true });
  return { signal: controller.signal, release };
}
