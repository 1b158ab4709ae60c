/**
 * The tool jobs this process's tools worker completed, heard as BullMQ's `completed` event (after the
 * completion's script ran, so the run job's children record the result). A run job that just added its
 * step's tool jobs waits here a moment before it moves to waiting-children: when its tools finish in
 * that moment, BullMQ's `moveToWaitingChildren` finds no child left and the run goes on in the same
 * activation, without the hop a parked run job makes (the completion moving it back to wait, a worker
 * fetching it again, its activation reading its state). See docs/DESIGN-NOTES.md, "A fast tool's run
 * goes on in the same activation".
 */
export interface IWatchedToolJobs {
  /** True once every watched job completed here; false when `waitMs` passed first (then they are forgotten). */
  wait(waitMs: number): Promise<boolean>;
  /** Forgets the watched jobs (their completions are no longer waited for). */
  stop(): void;
}

export class LocalToolCompletions {
  readonly #waiters = new Map<string, () => void>();

  /** Called for every tool job this process completed. */
  completed(jobId: string | undefined): void {
    if (jobId === undefined) return;
    const waiter = this.#waiters.get(jobId);
    if (!waiter) return;
    this.#waiters.delete(jobId);
    waiter();
  }

  /**
   * Starts listening for these jobs before they can complete: call it before they are added. Undefined
   * for no job (there would be nothing to wait for, and nothing it proves).
   */
  watch(jobIds: readonly string[]): IWatchedToolJobs | undefined {
    if (jobIds.length === 0) return undefined;
    let left = jobIds.length;
    let allDone: (() => void) | undefined;
    const waiter = () => {
      left -= 1;
      if (left === 0) allDone?.();
    };
    const stop = () => {
      for (const jobId of jobIds) if (this.#waiters.get(jobId) === waiter) this.#waiters.delete(jobId);
    };
    for (const jobId of jobIds) this.#waiters.set(jobId, waiter);
    return {
      wait: (waitMs) =>
        new Promise<boolean>((resolve) => {
          if (left === 0) return resolve(true);
          const timer = setTimeout(() => {
            stop();
            resolve(false);
          }, waitMs);
          allDone = () => {
            clearTimeout(timer);
            resolve(true);
          };
        }),
      stop,
    };
  }

  /** Jobs watched now (a diagnostic for tests: none is left once every run moved on). */
  get watching(): number {
    return this.#waiters.size;
  }
}
