/**
 * Time as the core sees it. Injected so tests and the shell decide what "now" and "later" mean; the core
 * itself never reads the wall clock.
 */
export interface IClock {
  /** Epoch milliseconds. */
  now(): number;
  /** Calls `callback` once after `delayMs`; returns a handle for `clearTimeout`. */
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The process's own clock and timers: the default when none is injected. */
export const systemClock: IClock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => globalThis.setTimeout(callback, delayMs),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};
