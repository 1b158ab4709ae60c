import { randomUUID } from "node:crypto";
import type { IModelStreamListener } from "../model/index.js";
import type { TextDeltaLog, TTextDeltaAppend } from "../store/index.js";

/** Issue 23's pacing: the first piece of a step at once, then one write per 50 ms, or sooner per 1 KB. */
export const TEXT_DELTA_INTERVAL_MS = 50;
export const TEXT_DELTA_MAX_CHARS = 1_024;

export interface ITextDeltaBatcherOptions {
  log: Pick<TextDeltaLog, "append">;
  runId: string;
  step: number;
  /**
   * The step may have been run before (the job stalled or failed once): a reply with no text still
   * checks for text an earlier attempt left, so that it is retracted.
   */
  mayRepeatStep: boolean;
  onWriteError: (error: unknown) => void;
  /** @defaultValue performance.now */
  now?: () => number;
}

/**
 * A model call's streamed text on its way to the run's events, batched so that Redis is not written per
 * token. Writes leave in order on the run's connection without waiting for each other; `close` sends what
 * is left and waits for all of them, so the text is stored before the reply's checkpoint.
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
  #timer: NodeJS.Timeout | undefined;
  /** Set once the run's allowance is spent or the run is gone: nothing more is written. */
  #stopped = false;
  #writes: Array<Promise<void>> = [];

  constructor(options: ITextDeltaBatcherOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
  }

  text(piece: string): void {
    if (this.#stopped) return;
    this.#parts.push(piece);
    this.#chars += piece.length;
    if (!this.#writtenThisAttempt || this.#chars >= TEXT_DELTA_MAX_CHARS) {
      this.#flush();
      return;
    }
    if (this.#timer === undefined) {
      const waitMs = Math.max(0, TEXT_DELTA_INTERVAL_MS - (this.#now() - this.#lastWriteAt));
      this.#timer = setTimeout(() => this.#flush(), waitMs);
    }
  }

  attemptStarted(): void {
    if (!this.#writtenThisAttempt && this.#chars === 0) return;
    this.#clearTimer();
    this.#parts = [];
    this.#chars = 0;
    this.#attempt = randomUUID();
    this.#writtenThisAttempt = false;
    this.#restarted = true;
  }

  /** Sends what is buffered and waits for every write; a write that failed was reported, not thrown. */
  async close(): Promise<void> {
    this.#clearTimer();
    if (this.#chars > 0) this.#flush();
    else if (!this.#writtenThisAttempt && (this.#options.mayRepeatStep || this.#restarted)) this.#write("");
    const writes = this.#writes;
    this.#writes = [];
    await Promise.all(writes);
  }

  #flush(): void {
    this.#clearTimer();
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

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
