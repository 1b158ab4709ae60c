/** What the throttled warning logs through; Tollgate's pino logger fits. */
export interface IWarningLogger {
  warn(fields: object, message: string): void;
}

/**
 * Redis connection errors repeat on every reconnect attempt, and a cluster repeats them per node: one
 * line per kind of error per `intervalMs`, with the count of lines left out since. The kind ignores
 * numbers (ports, addresses, slots), so `ECONNREFUSED 127.0.0.1:7001` and `:7002`, or MOVED to one node
 * and then another, are one kind: a node that moves or dies does not flood the log.
 */
export function throttledConnectionWarning(
  logger: IWarningLogger,
  options: { intervalMs?: number; now?: () => number } = {},
): (error: Error) => void {
  const intervalMs = options.intervalMs ?? 30_000;
  const now = options.now ?? Date.now;
  const kinds = new Map<string, { loggedAt: number; suppressed: number }>();
  return (error) => {
    const code = (error as { code?: unknown }).code;
    const kind = `${typeof code === "string" ? code : error.name}:${error.message.replace(/\d+/g, "#")}`;
    const seen = kinds.get(kind);
    const at = now();
    if (seen && at - seen.loggedAt < intervalMs) {
      seen.suppressed += 1;
      return;
    }
    kinds.set(kind, { loggedAt: at, suppressed: 0 });
    const suppressed = seen?.suppressed ?? 0;
    logger.warn(
      { err: error, ...(suppressed > 0 ? { suppressedSinceLast: suppressed } : {}) },
      "Redis connection error; reconnecting",
    );
  };
}
