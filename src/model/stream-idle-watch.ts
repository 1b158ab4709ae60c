import { APIConnectionTimeoutError } from "openai";

/**
 * A model stream that sent nothing for `streamIdleTimeoutMs`: a timeout like a request that never
 * answered (the SDK's own type, so the router retries or falls back on it as on any timeout).
 */
export class ModelStreamIdleError extends APIConnectionTimeoutError {
  readonly streamIdleTimeoutMs: number;

  constructor(streamIdleTimeoutMs: number) {
    super({ message: `The stream sent nothing for ${streamIdleTimeoutMs} ms.` });
    this.streamIdleTimeoutMs = streamIdleTimeoutMs;
  }
}

/** The watch looks at the stream this many times per idle window. */
const TICKS_PER_WINDOW = 4;

/**
 * Watches a stream for silence and calls `onIdle` once no chunk came for `idleTimeoutMs` (at most a
 * quarter of it more). A chunk only bumps a counter: an answer is ~2,000 chunks, and reading the clock
 * for each was about a tenth of Tollgate's own streaming code in a CPU profile. A timer ticks four times
 * per window; four ticks in a row that saw no new chunk are a silent window.
 */
export class StreamIdleWatch {
  readonly #onIdle: () => void;
  readonly #timer: NodeJS.Timeout;
  #chunks = 0;
  #chunksAtLastTick = 0;
  #quietTicks = 0;
  #idled = false;

  constructor(idleTimeoutMs: number, onIdle: () => void) {
    this.#onIdle = onIdle;
    this.#timer = setInterval(() => this.#tick(), Math.max(1, Math.floor(idleTimeoutMs / TICKS_PER_WINDOW)));
  }

  /** Whether the stream went silent (and `onIdle` was called). */
  get idled(): boolean {
    return this.#idled;
  }

  chunkArrived(): void {
    this.#chunks += 1;
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  #tick(): void {
    if (this.#chunks !== this.#chunksAtLastTick) {
      this.#chunksAtLastTick = this.#chunks;
      this.#quietTicks = 0;
      return;
    }
    this.#quietTicks += 1;
    if (this.#quietTicks < TICKS_PER_WINDOW) return;
    this.stop();
    this.#idled = true;
    this.#onIdle();
  }
}
