/**
 * Polls `check` for `durationMs` and throws at the first poll where it no longer holds: how a test shows
 * that something does NOT happen (a reload that must not come), over a window several times longer than
 * whatever would cause it, rather than by sleeping once and looking.
 */
export async function holdsThroughout(
  check: () => Promise<boolean> | boolean,
  options: { durationMs: number; intervalMs?: number; message: string },
): Promise<void> {
  const end = Date.now() + options.durationMs;
  for (;;) {
    if (!(await check())) throw new Error(`no longer holds: ${options.message}`);
    if (Date.now() > end) return;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 25));
  }
}
