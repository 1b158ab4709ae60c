import { TollgateError } from "../../errors/index.js";

/**
 * When a refused caller may try again (`Retry-After`, like every 429): a place frees when a stream's run
 * ends or its client leaves, which nothing here can predict; a few seconds keeps a reconnecting client
 * from hammering the cap without making it wait long once a place is free.
 */
export const EVENT_STREAM_RETRY_AFTER_MS = 5_000;

/** A stream's place under the caps, held until `release`. */
export interface IEventStreamPlace {
  /** Gives the place back; a second call does nothing. */
  release(): void;
}

export interface IEventStreamLimits {
  /** Streams open at once on this server. */
  maxStreams: number;
  /** Streams open at once for one token subject. */
  maxStreamsPerSubject: number;
}

/**
 * The open Server-Sent Events streams of an app, capped in total and per token subject: a stream holds
 * a connection and a follower until its run finishes, so one caller must not be able to open them
 * without bound. Closing the server would wait for every stream forever: close() aborts them first.
 */
export class EventStreams {
  private readonly open = new Map<AbortController, Promise<void>>();
  private readonly countBySubject = new Map<string, number>();
  /** Places taken by admit(): streams open plus those about to open. */
  private reserved = 0;

  constructor(private readonly limits: IEventStreamLimits) {}

  /**
   * Takes a place for a stream of `subject`, or throws 429 TG_RATE_LIMITED when a cap is reached.
   * Taken before the response starts, so a refused caller gets the error envelope; `release` gives the
   * place back (track() calls it when the stream ends).
   */
  admit(subject: string): IEventStreamPlace {
    const ofSubject = this.countBySubject.get(subject) ?? 0;
    if (this.reserved >= this.limits.maxStreams) {
      throw new TollgateError(
        "TG_RATE_LIMITED",
        "Too many event streams are open on this server; retry later.",
        { limit: this.limits.maxStreams, scope: "server", retryAfterMs: EVENT_STREAM_RETRY_AFTER_MS },
      );
    }
    if (ofSubject >= this.limits.maxStreamsPerSubject) {
      throw new TollgateError(
        "TG_RATE_LIMITED",
        "This token has too many event streams open; close one or retry later.",
        {
          limit: this.limits.maxStreamsPerSubject,
          scope: "token",
          retryAfterMs: EVENT_STREAM_RETRY_AFTER_MS,
        },
      );
    }
    this.reserved += 1;
    this.countBySubject.set(subject, ofSubject + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.reserved -= 1;
        const left = (this.countBySubject.get(subject) ?? 1) - 1;
        if (left > 0) this.countBySubject.set(subject, left);
        else this.countBySubject.delete(subject);
      },
    };
  }

  /** Runs `serve` until it returns; its signal aborts on closeAll(). */
  track(serve: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const controller = new AbortController();
    const served = serve(controller.signal).finally(() => this.open.delete(controller));
    this.open.set(controller, served);
    return served;
  }

  get size(): number {
    return this.open.size;
  }

  /** Ends every open stream and waits until each has let go of its follower. */
  async closeAll(): Promise<void> {
    for (const controller of this.open.keys()) controller.abort();
    await Promise.allSettled(this.open.values());
  }
}
