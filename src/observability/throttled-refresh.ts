export interface IThrottledRefreshOptions {
  /** A refresh started less than this long ago is reused. */
  intervalMs: number;
  /** Epoch milliseconds; injected so tests need no real waiting. */
  now: () => number;
}

/**
 * Wraps a refresh so that it runs at most once per interval. Scrapes within the interval share the
 * last refresh (awaiting it when it is still running), so N Prometheus servers or a retrying scraper
 * cost Redis one read per interval. `refresh` must not reject: it handles its own errors.
 */
export function throttledRefresh(
  refresh: () => Promise<void>,
  options: IThrottledRefreshOptions,
): () => Promise<void> {
  let startedAt: number | undefined;
  let latest: Promise<void> = Promise.resolve();
  return () => {
    const now = options.now();
    // A clock that went back (now < startedAt) refreshes too, rather than freezing the values.
    if (startedAt === undefined || now < startedAt || now - startedAt >= options.intervalMs) {
      startedAt = now;
      latest = refresh();
    }
    return latest;
  };
}
