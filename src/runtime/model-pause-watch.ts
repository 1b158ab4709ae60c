import type { IModelPauseMessage } from "../store/index.js";
import type { ITollgateRuntime } from "./runtime.js";

/**
 * A worker's view of the fleet-wide model pauses without a read before every model call: the first ask
 * for a model reads its pause key once, and from then on the pauses channel keeps the view current (the
 * pause script announces every pause it starts or lengthens). While the subscription is down, and after
 * it comes back, asks read the key again until a fresh read is taken, since announcements made meanwhile
 * were lost. A pause missed anyway costs one model call, whose 429 pauses and parks the run as before.
 */
export class ModelPauseWatch {
  /** model → end of its pause on this process's monotonic clock (0: not paused). */
  private readonly pausedUntil = new Map<string, number>();
  private readonly subscriber;
  private listening = false;

  private constructor(private readonly runtime: ITollgateRuntime) {
    this.subscriber = runtime.duplicateConnection();
  }

  static async start(runtime: ITollgateRuntime): Promise<ModelPauseWatch> {
    const watch = new ModelPauseWatch(runtime);
    const { subscriber } = watch;
    subscriber.on("message", (_channel: string, message: string) => watch.heard(message));
    await subscriber.subscribe(runtime.deploymentKeys.modelPauseChannel());
    watch.listening = true;
    // Announcements made while disconnected are lost: what was known is forgotten, and read again once
    // ioredis has reconnected (it subscribes again by itself).
    subscriber.on("close", () => {
      watch.listening = false;
      watch.pausedUntil.clear();
    });
    subscriber.on("ready", () => {
      watch.pausedUntil.clear();
      watch.listening = true;
    });
    return watch;
  }

  /** How long calls to `model` must still wait; 0 when it is not paused. */
  async remainingMs(model: string): Promise<number> {
    const known = this.listening ? this.pausedUntil.get(model) : undefined;
    if (known !== undefined) return Math.max(0, Math.ceil(known - performance.now()));
    const remainingMs = await this.runtime.modelPauses.remainingMs(model);
    if (this.listening) this.remember(model, remainingMs);
    return remainingMs;
  }

  /** Records a pause this process learned of itself (its own 429), ahead of the announcement. */
  paused(model: string, pauseMs: number): void {
    this.remember(model, pauseMs);
  }

  private heard(message: string): void {
    let parsed: IModelPauseMessage;
    try {
      parsed = JSON.parse(message) as IModelPauseMessage;
    } catch {
      return;
    }
    if (typeof parsed.model === "string" && typeof parsed.pauseMs === "number")
      this.remember(parsed.model, parsed.pauseMs);
  }

  /** Never shortens a known pause: the key's pause only ever lengthens. */
  private remember(model: string, pauseMs: number): void {
    const until = performance.now() + pauseMs;
    this.pausedUntil.set(model, Math.max(until, this.pausedUntil.get(model) ?? 0));
  }

  async close(): Promise<void> {
    this.subscriber.disconnect();
  }
}
