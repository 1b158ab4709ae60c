/**
 * The MCP requests an app is answering. A call waits for its run and `tasks/result` for its task, which
 * may wait for a person for hours: closing the server would wait for them. close() ends them first, as
 * the open event streams are (their clients read the connection's end and may ask again elsewhere; the
 * runs go on).
 */
export class OpenMcpRequests {
  readonly #closers = new Set<() => Promise<void>>();

  /** Tracks one request until the returned function is called (when its response has ended). */
  track(close: () => Promise<void>): () => void {
    this.#closers.add(close);
    return () => {
      this.#closers.delete(close);
    };
  }

  async closeAll(): Promise<void> {
    const closers = [...this.#closers];
    this.#closers.clear();
    await Promise.allSettled(closers.map((close) => close()));
  }
}
