/** How long the run listing's indexes keep a run, and how long a thread's index lives. */

/**
 * How long after its creation a run stays in the listing's indexes beyond the retention: a run's state is
 * kept for the retention from its finish, and its index entries are scored by its creation, so an entry
 * is dropped once it is older than the retention plus this grace (runs that lasted longer than it leave
 * the listing before their state goes). Every index also expires this long after its newest entry.
 */
export const runIndexGraceMs = 7 * 24 * 60 * 60 * 1000;

/**
 * The listing indexes' trim cutoff (creation time, ms) and time to live, for a write at `now`. The grace is
 * at most the retention itself, so a deployment with a short retention keeps no index key much longer than
 * the runs it lists (at most twice the retention after its newest entry).
 */
export function runIndexTimes(retentionMs: number, now: number): { cutoff: string; ttlMs: string } {
  const graceMs = Math.min(runIndexGraceMs, retentionMs);
  return {
    cutoff: String(now - retentionMs - graceMs),
    ttlMs: String(retentionMs + graceMs),
  };
}

/**
 * How long a thread's run index lives after its last use: the thread's retention (it is the thread's list
 * of runs, what deleting the thread deletes) and at least a listing index's time to live.
 */
export function threadIndexTtlMs(retentionMs: number, threadRetentionMs: number): number {
  return Math.max(threadRetentionMs, Number(runIndexTimes(retentionMs, 0).ttlMs));
}
