import type { Redis } from "ioredis";
import { eventJson } from "./floor-records-store.js";

/** As Tollgate paces streamed text: the first piece at once, then a write per 50 ms or per 1 KB. */
const intervalMs = 50;
const maxCharacters = 1_024;

/**
 * A model call's streamed text on its way to the run's event stream, one plain XADD per batch so that
 * Redis is not written per token. No timer: a paced batch waits for the next piece or for `close`, which
 * writes what is left and waits for every write (the text is stored before the reply's checkpoint). No
 * retraction of an earlier attempt's text and no allowance (Tollgate's text-delta script keeps both).
 */
export class TextDeltaWriter {
  #pieces: string[] = [];
  #characters = 0;
  #lastWriteAt = Number.NEGATIVE_INFINITY;
  #writes: Array<Promise<unknown>> = [];

  constructor(
    private readonly connection: Redis,
    private readonly eventsKey: string,
    private readonly step: number,
  ) {}

  text(piece: string): void {
    this.#pieces.push(piece);
    this.#characters += piece.length;
    if (this.#characters >= maxCharacters || performance.now() - this.#lastWriteAt >= intervalMs)
      this.#write();
  }

  async close(): Promise<void> {
    if (this.#characters > 0) this.#write();
    await Promise.all(this.#writes);
  }

  #write(): void {
    const text = this.#pieces.join("");
    this.#pieces = [];
    this.#characters = 0;
    this.#lastWriteAt = performance.now();
    const event = eventJson("text-delta", { step: this.step, text }, Date.now());
    this.#writes.push(this.connection.xadd(this.eventsKey, "*", "event", event));
  }
}
