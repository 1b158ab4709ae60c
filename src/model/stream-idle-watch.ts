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

/**
 * Watches a stream for silence and calls `onIdle` once no chunk came for `idleTimeoutMs`. A chunk only
 * stamps the time (an answer is ~2,000 chunks: no timer is set or cleared per chunk); the one timer, when
 * it fires, waits again for what is left of the window since the last chunk.
 */
export class StreamIdleWatch {
  readonly #idleTimeoutMs: number;
  readonly #onIdle: () => void;
  readonly #now: () => number;
  #lastChunkAt: number;
  #timer: NodeJS.Timeout | undefined;
  #idled = false;

  constructor(idleTimeoutMs: number, onIdle: () => void, now: () => number = () => performance.now()) {
    this.#idleTimeoutMs = idleTimeoutMs;
    this.#onIdle = onIdle;
    this.#now = now;
    this.#lastChunkAt = now();
    this.#arm(idleTimeoutMs);
  }

  /** Whether the stream went silent (and `onIdle` was called). */
  get idled(): boolean {
    return this.#idled;
  }

  chunkArrived(): void {
    this.#lastChunkAt = this.#now();
  }

  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(delayMs: number): void {
    this.#timer = setTimeout(() => this.#check(), delayMs);
  }

  #check(): void {
    const silentMs = this.#now() - this.#lastChunkAt;
    if (silentMs < this.#idleTimeoutMs) {
      this.#arm(this.#idleTimeoutMs - silentMs);
      return;
    }
    this.#timer = undefined;
    this.#idled = true;
    this.#onIdle();
  }
}
