/**
 * The open Server-Sent Events streams of an app. A stream holds its connection open until its run
 * finishes, so closing the server would wait for it forever: close() aborts them all first.
 */
export class EventStreams {
  private readonly open = new Map<AbortController, Promise<void>>();

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

  /** Ends every open stream and waits until each has released its Redis connection. */
  async closeAll(): Promise<void> {
    for (const controller of this.open.keys()) controller.abort();
    await Promise.allSettled(this.open.values());
  }
}
