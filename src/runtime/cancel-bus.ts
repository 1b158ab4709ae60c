import type { ITollgateRuntime } from "./runtime.js";

/**
 * What `register` hands out. One controller serves a run's cancellation and whatever else may stop the
 * same work (a refused first save, BullMQ's job signal): an AbortSignal costs about 0.8 KB on Node 20,
 * held as long as the work, and a signal linked to two others costs three (issue 26).
 */
export interface ICancelRegistration {
  /** Aborted when the run is cancelled, by `abort`, or when a followed signal aborts. */
  signal: AbortSignal;
  /** Aborts this registration's signal alone (no broadcast: other work of the run goes on). */
  abort(reason?: unknown): void;
  /** Aborts the signal also when `source` aborts, with its reason (at once if it has), until released. */
  follow(source: AbortSignal): void;
  /** Detaches the signal from the bus and from what it follows; call it once the work is over. */
  release(): void;
}

/** Cancellations remembered, so that work registered just after the broadcast is aborted at once. */
const rememberedCancellations = 10_000;

/**
 * Cancellation broadcast: `cancel` publishes a run id on one channel; every worker process subscribes once
 * and aborts the signals it handed out for that run (its model calls and tool calls). BullMQ's own
 * `cancelJob` reaches only jobs of the calling process, hence the broadcast.
 */
export class CancelBus {
  private readonly controllers = new Map<string, Set<AbortController>>();
  /** Runs cancelled since this process subscribed, oldest first (bounded). */
  private readonly cancelled = new Set<string>();
  private readonly subscriber;

  private constructor(runtime: ITollgateRuntime) {
    this.subscriber = runtime.duplicateConnection();
  }

  /**
   * `channels`: the cancel channels of every partition the process serves (run ids are unique across
   * partitions, so one subscriber serves them all). @defaultValue the runtime's own
   */
  static async start(
    runtime: ITollgateRuntime,
    channels: readonly string[] = [runtime.keys.cancelChannel()],
  ): Promise<CancelBus> {
    const bus = new CancelBus(runtime);
    bus.subscriber.on("message", (_channel: string, runId: string) => bus.abortLocal(runId));
    await bus.subscriber.subscribe(...channels);
    return bus;
  }

  /**
   * A signal aborted when the run is cancelled (already aborted when the cancellation was heard before
   * this call); call `release` when the work is done.
   */
  register(runId: string): ICancelRegistration {
    const controller = new AbortController();
    if (this.cancelled.has(runId)) controller.abort(new Error(`run ${runId} cancelled`));
    let set = this.controllers.get(runId);
    if (!set) {
      set = new Set();
      this.controllers.set(runId, set);
    }
    set.add(controller);
    let unfollow: (() => void) | undefined;
    return {
      signal: controller.signal,
      abort: (reason) => controller.abort(reason),
      follow: (source) => {
        if (source.aborted) {
          controller.abort(source.reason);
          return;
        }
        const onAbort = () => controller.abort(source.reason);
        source.addEventListener("abort", onAbort, { once: true });
        const previous = unfollow;
        unfollow = () => {
          previous?.();
          source.removeEventListener("abort", onAbort);
        };
      },
      release: () => {
        unfollow?.();
        set.delete(controller);
        if (set.size === 0) this.controllers.delete(runId);
      },
    };
  }

  abortLocal(runId: string): void {
    this.cancelled.add(runId);
    if (this.cancelled.size > rememberedCancellations)
      this.cancelled.delete(this.cancelled.values().next().value!);
    for (const controller of this.controllers.get(runId) ?? [])
      controller.abort(new Error(`run ${runId} cancelled`));
  }

  async close(): Promise<void> {
    this.subscriber.disconnect();
  }
}

/** Tells every worker to abort what it does for this run. */
export async function broadcastCancel(runtime: ITollgateRuntime, runId: string): Promise<void> {
  await runtime.redis.publish(runtime.keys.cancelChannel(), runId);
}
