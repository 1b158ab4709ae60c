/**
 * Yields the values of several async generators as each produces them (no order between sources, the
 * order of each source kept), with the index of the source. Ends when every source ended; a source's
 * error ends the merge with that error. Returning early returns the sources that are not busy; the
 * caller stops busy ones through the signal it gave them (a follower waiting for more never resolves).
 */
export async function* mergeGenerators<TValue>(
  sources: readonly AsyncGenerator<TValue>[],
): AsyncGenerator<{ source: number; value: TValue }> {
  type TPending = Promise<{ source: number; result: IteratorResult<TValue> }>;
  const pending = new Map<number, TPending>();
  const pull = (source: number) =>
    pending.set(
      source,
      (sources[source] as AsyncGenerator<TValue>).next().then((result) => ({ source, result })),
    );
  for (let source = 0; source < sources.length; source += 1) pull(source);
  try {
    while (pending.size > 0) {
      const { source, result } = await Promise.race(pending.values());
      if (result.done) {
        pending.delete(source);
        continue;
      }
      pull(source);
      yield { source, value: result.value };
    }
  } finally {
    // Sources still waiting settle when the caller's signal aborts them; their outcome is not wanted.
    for (const promise of pending.values()) promise.catch(() => undefined);
  }
}
