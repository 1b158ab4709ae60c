// After a decision the run goes on by itself (the tool runs, the model answers): nothing on the
// approval event stream says when it ends, so a page showing a decided approval re-reads the run's
// status until it is final.

const finalStatuses = new Set(["completed", "failed", "cancelled", "timed_out"]);
const intervalMs = 1000;

/**
 * Calls `readStatus` (which also redraws what it read) every second until the status is final, the
 * read fails (undefined), or `isClosed()`.
 * @param {() => Promise<string | undefined>} readStatus
 * @param {() => boolean} isClosed
 */
export async function watchRunUntilFinal(readStatus, isClosed) {
  for (;;) {
    const status = await readStatus();
    if (isClosed() || status === undefined || finalStatuses.has(status)) return;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    if (isClosed()) return;
  }
}
