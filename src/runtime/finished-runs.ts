import type { IGatewayResponse } from "../contracts/index.js";
import type { ITollgateRedis } from "../store/index.js";
import type { ITollgateRuntime } from "./runtime.js";

/** What the save that finishes a run publishes: its id, and its response when that is small. */
export interface IFinishedMessage {
  runId: string;
  response?: IGatewayResponse;
}

/**
 * Finishes heard lately (their run ids), so a waiter that registers just after its run finished still
 * hears it. Ids, not messages: every finish of the partition is heard by every client, and a message kept
 * for 2,000 more finishes outlives the young generation, so each one was promoted and left for a full
 * collection (issue 26). A late waiter reads the run instead, as it does when a message has no response.
 */
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
  /** The latest finishes' run ids, oldest first (a Set keeps insertion order). */
  private readonly recent = new Set<string>();

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
   * `await watch.ready`, read, then `await watch.done`. A finish heard shortly before `watch` counts (its
   * message then has no response: the waiter reads it).
   */
  watch(
    runId: string,
    signal: AbortSignal,
  ): { ready: Promise<void>; done: Promise<IFinishedMessage | undefined> } {
    let release = () => {};
    const done = new Promise<IFinishedMessage | undefined>((resolve) => {
      if (this.recent.has(runId)) {
        resolve({ runId });
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
      subscriber.on("message", (_channel: string, text: string) => this.heard(text));
      this.subscribed = subscriber.subscribe(...this.channels).then(() => undefined);
    }
    return this.subscribed;
  }

  /** Only a message someone waits for is parsed: the others are every other client's runs. */
  private heard(text: string): void {
    const runId = runIdOfMessage(text);
    this.recent.delete(runId);
    this.recent.add(runId);
    if (this.recent.size > recentCapacity) this.recent.delete(this.recent.values().next().value!);
    const waiters = this.waiters.get(runId);
    if (waiters === undefined) return;
    const message = parseMessage(text);
    for (const finish of [...waiters]) finish(message);
  }

  close(): void {
    this.subscriber?.disconnect();
    for (const waiters of this.waiters.values()) for (const finish of [...waiters]) finish({ runId: "" });
  }
}

/** What the finish script publishes begins so: the run id is read without parsing the response. */
const messageStart = '{"runId":"';

/**
 * The run id of a message, read from its start (`{"runId":"…"` as the finish writes it); any other form, or
 * an id with an escape in it, is parsed whole. The id is parsed from its own JSON string: a slice of the
 * message would be a view into it, keeping the whole message (its response) alive as long as the id.
 */
function runIdOfMessage(text: string): string {
  if (text.startsWith(messageStart)) {
    const end = text.indexOf('"', messageStart.length);
    if (end >= 0 && text.lastIndexOf("\\", end) < messageStart.length)
      return JSON.parse(text.slice(messageStart.length - 1, end + 1)) as string;
  }
  return parseMessage(text).runId;
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
