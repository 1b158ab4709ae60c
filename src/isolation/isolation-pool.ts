import type { IIsolatedRequest } from "./isolation-messages.js";
import { deserializeToolError } from "./isolation-messages.js";
import type { IIsolationSlot } from "./isolation-slot.js";

interface ICallHandler {
  id: number;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Up to `size` threads or child processes. A slot takes calls only once its host has loaded the gateway
 * module (a cold start would otherwise eat the first call's timeout). A call whose signal aborts (its timeout,
 * a cancelled run) terminates its slot, and a replacement starts warming at once. A thread or process that
 * exits mid-call fails that call as the tool's error.
 */
export class IsolationPool {
  private readonly idle: IIsolationSlot[] = [];
  private readonly waiting: Array<{ take: (slot: IIsolationSlot) => void; fail: (error: unknown) => void }> =
    [];
  private readonly all = new Set<IIsolationSlot>();
  private readonly handlers = new WeakMap<IIsolationSlot, ICallHandler>();
  private readonly warming = new Map<IIsolationSlot, Promise<void>>();
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly startSlot: () => IIsolationSlot,
  ) {}

  /** Starts `count` slots and resolves once they are warm (or failed to load the gateway). */
  async warm(count: number): Promise<void> {
    const started: Promise<void>[] = [];
    while (this.all.size < Math.min(count, this.size)) started.push(this.warming.get(this.start())!);
    await Promise.all(started);
  }

  async run(request: Omit<IIsolatedRequest, "id">, signal: AbortSignal): Promise<unknown> {
    if (signal.aborted) throw signal.reason;
    const slot = await this.acquire(signal);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.handlers.delete(slot);
        this.discard(slot);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      const settle = (settleWith: () => void): void => {
        signal.removeEventListener("abort", onAbort);
        settleWith();
      };
      this.handlers.set(slot, {
        id,
        resolve: (value) => settle(() => resolve(value)),
        reject: (error) => settle(() => reject(error)),
      });
      slot.send({ ...request, id });
    });
  }

  /** Terminates every thread or process; calls in flight reject. */
  close(): void {
    this.closed = true;
    for (const slot of [...this.all]) this.discard(slot);
  }

  private acquire(signal: AbortSignal): Promise<IIsolationSlot> {
    const ready = this.idle.pop();
    if (ready) return Promise.resolve(ready);
    if (this.all.size < this.size) this.start();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal.reason);
      };
      const waiter = {
        take: (slot: IIsolationSlot): void => {
          signal.removeEventListener("abort", onAbort);
          resolve(slot);
        },
        fail: (error: unknown): void => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** A warm slot goes to the longest-waiting call, else to the idle list. */
  private release(slot: IIsolationSlot): void {
    if (!this.all.has(slot)) return;
    const next = this.waiting.shift();
    if (next) next.take(slot);
    else this.idle.push(slot);
  }

  private start(): IIsolationSlot {
    const slot = this.startSlot();
    this.all.add(slot);
    let markWarm = (): void => {};
    this.warming.set(slot, new Promise<void>((resolve) => (markWarm = resolve)));
    slot.listen(
      (message) => {
        if ("ready" in message) {
          this.warming.delete(slot);
          markWarm();
          if (message.ready) this.release(slot);
          else this.failWaiting(slot, deserializeToolError(message.error));
          return;
        }
        const handler = this.handlers.get(slot);
        if (!handler || handler.id !== message.id) return;
        this.handlers.delete(slot);
        if (message.ok) handler.resolve(message.output);
        else handler.reject(deserializeToolError(message.error));
        this.release(slot);
      },
      (error) => {
        markWarm();
        const handler = this.handlers.get(slot);
        this.handlers.delete(slot);
        this.forget(slot, false);
        handler?.reject(error);
      },
    );
    return slot;
  }

  /** A host that cannot load the gateway fails the calls waiting for a slot, and is not replaced. */
  private failWaiting(slot: IIsolationSlot, error: unknown): void {
    this.discard(slot, false);
    for (const waiter of this.waiting.splice(0)) waiter.fail(error);
  }

  /** Stops a slot; a replacement starts warming unless the pool is closing. */
  private discard(slot: IIsolationSlot, replace = true): void {
    this.forget(slot, replace);
    slot.terminate();
  }

  private forget(slot: IIsolationSlot, replace: boolean): void {
    if (!this.all.delete(slot)) return;
    const index = this.idle.indexOf(slot);
    if (index >= 0) this.idle.splice(index, 1);
    if (!this.closed && (replace || this.waiting.length > 0)) this.start();
  }
}
