import type { IGatewayResponse } from "../contracts/index.js";
import type { ITollgateRedis } from "../store/index.js";
import type { ITollgateRuntime } from "./runtime.js";

/** What the save that finishes a run publishes: its id, and its response when that is small. */
export interface IFinishedMessage {
  runId: string;
  response?: IGatewayResponse;
}

/** Finishes heard lately, so a waiter that registers just after its run finished still hears it. */
const recentCapacity = 2_000;

/**
 * Tells waiters when a run finishes. The save that finishes a run publishes its id (and its response when
 * small); one subscriber connection per client serves every waiter, so waiting for many runs costs no
 * connection each, and a waiter whose message carried the response reads nothing from Redis.
 */
export class FinishedRuns {
  private subscriber: ITollgateRedis | undefined;
  private subscribed: Promise<void> | undefined;
  private readonly waiters = new Map<string, Set<(message: IFinishedMessage) => void>>();
  /** The latest finishes, oldest first (a Map keeps insertion order). */
  private readonly recent = new Map<string, IFinishedMessage>();

  /**
   * `channels`: the finished channels listened to, one per partition the client reaches (run ids are
   * unique across partitions, so one subscriber serves them all). @defaultValue the runtime's own
   */
  constructor(
    private readonly runtime: ITollgateRuntime,
    private readonly channels: readonly string[] = [runtime.keys.finishedChannel()],
  ) {}

  /** Resolves once the subscription is live: every finish published after this is heard. */
  ready(): Promise<void> {
    return this.subscribe();
  }

  /**
   * Resolves with the finish message when the run finishes, or with undefined when `signal` aborts.
   * Subscribe before reading the state, so that a finish between the read and the wait is not missed:
   * `await watch.ready`, read, then `await watch.done`. A finish heard shortly before `watch` counts.
   */
  watch(
    runId: string,
    signal: AbortSignal,
  ): { ready: Promise<void>; done: Promise<IFinishedMessage | undefined> } {
    let release = () => {};
    const done = new Promise<IFinishedMessage | undefined>((resolve) => {
      const heard = this.recent.get(runId);
      if (heard) {
        resolve(heard);
        return;
      }
      const waiters = this.waiters.get(runId) ?? new Set<(message: IFinishedMessage) => void>();
      this.waiters.set(runId, waiters);
      const finish = (message?: IFinishedMessage) => {
        waiters.delete(finish);
        if (waiters.size === 0) this.waiters.delete(runId);
        signal.removeEventListener("abort", onAbort);
        resolve(message);
      };
      const onAbort = () => finish();
      waiters.add(finish);
      signal.addEventListener("abort", onAbort, { once: true });
      release = () => finish();
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
      subscriber.on("message", (_channel: string, text: string) => this.heard(parseMessage(text)));
      this.subscribed = subscriber.subscribe(...this.channels).then(() => undefined);
    }
    return this.subscribed;
  }

  private heard(message: IFinishedMessage): void {
    this.recent.set(message.runId, message);
    if (this.recent.size > recentCapacity) this.recent.delete(this.recent.keys().next().value!);
    for (const finish of [...(this.waiters.get(message.runId) ?? [])]) finish(message);
  }

  close(): void {
    this.subscriber?.disconnect();
    for (const waiters of this.waiters.values()) for (const finish of [...waiters]) finish({ runId: "" });
  }
}

/** A message is JSON; a bare id (a worker of the previous version) is read as one. */
function parseMessage(text: string): IFinishedMessage {
  if (!text.startsWith("{")) return { runId: text };
  try {
    return JSON.parse(text) as IFinishedMessage;
  } catch {
    return { runId: text };
  }
}
