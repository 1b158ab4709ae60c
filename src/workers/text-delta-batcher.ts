import { randomUUID } from "node:crypto";
import type { IModelStreamListener } from "../model/index.js";
import type { TextDeltaLog, TTextDeltaAppend } from "../store/index.js";
import type { IDueFlush, TextDeltaFlushClock } from "./text-delta-flush-clock.js";

/** Issue 23's pacing: the first piece of a step at once, then one write per 50 ms, or sooner per 1 KB. */
export const TEXT_DELTA_INTERVAL_MS = 50;
export const TEXT_DELTA_MAX_CHARS = 1_024;

export interface ITextDeltaBatcherOptions {
  log: Pick<TextDeltaLog, "append">;
  /** The worker's one clock for paced pieces (text-delta-flush-clock.ts). */
  clock: Pick<TextDeltaFlushClock, "schedule" | "cancel">;
  runId: string;
  step: number;
  /**
   * The step may have been run before (the job stalled or failed once): a reply with no text still
   * checks for text an earlier attempt left, so that it is retracted.
   */
  mayRepeatStep: boolean;
  onWriteError: (error: unknown) => void;
  /** The flush clock's time too: @defaultValue performance.now */
  now?: () => number;
}

/**
 * A model call's streamed text on its way to the run's events, batched so that Redis is not written per
 * token. Writes leave in order on the run's connection without waiting for each other; `close` sends what
 * is left and waits for all of them, so the text is stored before the reply's checkpoint. Paced pieces
 * wait for the worker's flush clock, which writes every run's due pieces together; the step's first
 * piece, a full 1 KB and `close` write at once. Every write, whoever triggers it, is one `append` made
 * here in order.
 */
export class TextDeltaBatcher implements IModelStreamListener {
  readonly #options: ITextDeltaBatcherOptions;
  readonly #now: () => number;
  #attempt = randomUUID();
  #parts: string[] = [];
  #chars = 0;
  #writtenThisAttempt = false;
  #restarted = false;
  #lastWriteAt = 0;
  /** This run's place on the flush clock while paced text waits. */
  readonly #due: IDueFlush;
  #scheduled = false;
  /** Set once the run's allowance is spent or the run is gone: nothing more is written. */
  #stopped = false;
  #writes: Array<Promise<void>> = [];

  constructor(options: ITextDeltaBatcherOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
    this.#due = {
      dueAt: () => this.#lastWriteAt + TEXT_DELTA_INTERVAL_MS,
      flush: () => {
        this.#scheduled = false;
        this.#flush();
      },
    };
  }

  text(piece: string): void {
    if (this.#stopped) return;
    this.#parts.push(piece);
    this.#chars += piece.length;
    if (!this.#writtenThisAttempt || this.#chars >= TEXT_DELTA_MAX_CHARS) {
      this.#flush();
      return;
    }
    if (!this.#scheduled) {
      this.#scheduled = true;
      this.#options.clock.schedule(this.#due);
    }
  }

  attemptStarted(): void {
    if (!this.#writtenThisAttempt && this.#chars === 0) return;
    this.#unschedule();
    this.#parts = [];
    this.#chars = 0;
    this.#attempt = randomUUID();
    this.#writtenThisAttempt = false;
    this.#restarted = true;
  }

  /** Sends what is buffered and waits for every write; a write that failed was reported, not thrown. */
  async close(): Promise<void> {
    this.#unschedule();
    if (this.#chars > 0) this.#flush();
    else if (!this.#writtenThisAttempt && (this.#options.mayRepeatStep || this.#restarted)) this.#write("");
    const writes = this.#writes;
    this.#writes = [];
    await Promise.all(writes);
  }

  #flush(): void {
    this.#unschedule();
    if (this.#chars === 0 || this.#stopped) return;
    const text = this.#parts.length === 1 ? (this.#parts[0] ?? "") : this.#parts.join("");
    this.#parts = [];
    this.#chars = 0;
    this.#write(text);
  }

  #write(text: string): void {
    this.#writtenThisAttempt = true;
    this.#lastWriteAt = this.#now();
    const { log, runId, step } = this.#options;
    this.#writes.push(
      log.append(runId, step, this.#attempt, text).then(
        (result: TTextDeltaAppend) => {
          if (result !== "appended" && text !== "") this.#stopped = true;
        },
        (error: unknown) => this.#options.onWriteError(error),
      ),
    );
  }

  #unschedule(): void {
    if (!this.#scheduled) return;
    this.#scheduled = false;
    this.#options.clock.cancel(this.#due);
  }
}
