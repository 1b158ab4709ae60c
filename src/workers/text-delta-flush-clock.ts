/** How often the clock looks for paced pieces that are due: a paced piece waits at most this much more. */
export const TEXT_DELTA_CLOCK_TICK_MS = 10;

/** A run's paced text, waiting for the clock. */
export interface IDueFlush {
  /** When (performance.now) the run may write again: its last write plus the pacing interval. */
  dueAt(): number;
  flush(): void;
}

/**
 * One clock for every streamed run of a worker: each tick writes all the runs' pieces that are due, one
 * after the other in one timer callback, so that the run connection's auto-pipelining sends them to
 * Redis in one socket write (and reads their replies in one). With a timer per run, writes shared a
 * socket write only when the loop happened to run several timers in one turn (a busy loop does; a quiet
 * one fires them alone), and a write alone in its turn costs the process several times what one of ten
 * does (bench/text-delta-append-cost.ts).
 *
 * Order: the clock only decides when a run's batcher flushes; the batcher's writes still leave through
 * its one `append` call each, in the order it makes them, on the run's one connection, whose pipeline
 * keeps their order. The clock never writes a piece itself, and a flush the batcher makes outside it
 * (the step's first piece, 1 KB, `close`) first takes it off the clock.
 */
export class TextDeltaFlushClock {
  readonly #tickMs: number;
  readonly #now: () => number;
  /** Insertion order: runs that waited longest are written first. */
  readonly #waiting = new Set<IDueFlush>();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: { tickMs?: number; now?: () => number } = {}) {
    this.#tickMs = options.tickMs ?? TEXT_DELTA_CLOCK_TICK_MS;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Flushes `due` at the first tick at or after its `dueAt`. */
  schedule(due: IDueFlush): void {
    this.#waiting.add(due);
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.#tick(), this.#tickMs);
      // Nothing to wait for once the runs are gone: the clock never holds a process open.
      this.#timer.unref();
    }
  }

  cancel(due: IDueFlush): void {
    this.#waiting.delete(due);
  }

  #tick(): void {
    const now = this.#now();
    for (const due of this.#waiting) {
      if (due.dueAt() > now) continue;
      this.#waiting.delete(due);
      due.flush();
    }
    if (this.#waiting.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }
}
