import type { ITollgateRedis } from "../store/index.js";
import type { ITollgateRuntime } from "./runtime.js";

/**
 * Tells waiters when a run finishes. The save that finishes a run publishes its id; one subscriber
 * connection per client serves every waiter, so waiting for many runs costs no connection each.
 */
export class FinishedRuns {
  private subscriber: ITollgateRedis | undefined;
  private subscribed: Promise<void> | undefined;
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(private readonly runtime: ITollgateRuntime) {}

  /**
   * Resolves when the run finishes, or when `signal` aborts. Subscribe before reading the state, so that
   * a finish between the read and the wait is not missed: `await watch.ready`, read, then `await watch.done`.
   */
  watch(runId: string, signal: AbortSignal): { ready: Promise<void>; done: Promise<void> } {
    let release = () => {};
    const done = new Promise<void>((resolve) => {
      const waiters = this.waiters.get(runId) ?? new Set<() => void>();
      this.waiters.set(runId, waiters);
      const finish = () => {
        waiters.delete(finish);
        if (waiters.size === 0) this.waiters.delete(runId);
        signal.removeEventListener("abort", finish);
        resolve();
      };
      waiters.add(finish);
      signal.addEventListener("abort", finish, { once: true });
      release = finish;
    });
    const ready = this.subscribe().catch((error: unknown) => {
      release();
      throw error;
    });
    return { ready, done };
  }

  private subscribe(): Promise<void> {
    if (!this.subscribed) {
      const subscriber = this.runtime.duplicateConnection();
      this.subscriber = subscriber;
      subscriber.on("message", (_channel: string, runId: string) => {
        for (const finish of [...(this.waiters.get(runId) ?? [])]) finish();
      });
      this.subscribed = subscriber.subscribe(this.runtime.keys.finishedChannel()).then(() => undefined);
    }
    return this.subscribed;
  }

  close(): void {
    this.subscriber?.disconnect();
    for (const waiters of this.waiters.values()) for (const finish of [...waiters]) finish();
  }
}
