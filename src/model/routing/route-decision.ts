/**
 * The router's pure decisions (no I/O, no clock of its own): which model a call tries next, and how long
 * to wait before another attempt of the same model. The router (model-router.ts) carries them out.
 */

/** What the router knows of each model when it decides. */
export interface IRouteView {
  now: number;
  /** When the model's cooldown ends; undefined when it is not cooling down. */
  coolingUntil(model: string): number | undefined;
  /** How long the model stays paused fleet-wide by a 429; 0 when it is not. */
  pausedMs(model: string): number;
  /** True when the model declares it cannot serve this call (it lacks a capability the call needs). */
  unsupported?(model: string): boolean;
}

/** Why a model of the chain was passed over without being tried. */
export type TSkipReason = "cooling_down" | "paused" | "tools_unsupported";

export type TRouteStep =
  /** Try `model` (at `index` of the chain); `skipped`: the models before it passed over, and why. */
  | {
      type: "try";
      model: string;
      index: number;
      skipped: Array<{ model: string; reason: TSkipReason }>;
    }
  /** Every model left is paused: the call waits for the first to be free again. */
  | { type: "paused"; model: string; retryAfterMs: number }
  /** No model is left to try. */
  | { type: "exhausted" };

/**
 * The next model of `chain` (the chosen model, then its fallbacks in order) from `fromIndex` on:
 * - a model paused fleet-wide is never tried; when every model left is, the call waits for the pause that
 *   ends first;
 * - a model cooling down is passed over while a later model is neither cooling down nor paused;
 * - when every model left that is not paused is cooling down, the first of them is tried anyway: a
 *   cooldown alone never fails a call;
 * - a model that cannot serve the call (`unsupported`) is never tried nor waited for: it is as absent.
 */
export function nextModel(chain: readonly string[], fromIndex: number, view: IRouteView): TRouteStep {
  const isUnsupported = (model: string) => view.unsupported?.(model) === true;
  const all = chain.slice(fromIndex).map((model, offset) => ({ model, index: fromIndex + offset }));
  const left = all.filter(({ model }) => !isUnsupported(model));
  if (left.length === 0) return { type: "exhausted" };
  const isPaused = (model: string) => view.pausedMs(model) > 0;
  const isCooling = (model: string) => (view.coolingUntil(model) ?? Number.NEGATIVE_INFINITY) > view.now;
  const fresh = left.find(({ model }) => !isPaused(model) && !isCooling(model));
  const chosen = fresh ?? left.find(({ model }) => !isPaused(model));
  if (chosen === undefined) {
    const first = left.reduce((best, next) =>
      view.pausedMs(next.model) < view.pausedMs(best.model) ? next : best,
    );
    return { type: "paused", model: first.model, retryAfterMs: view.pausedMs(first.model) };
  }
  const skipped = all
    .filter(({ index }) => index < chosen.index)
    .map(({ model }) => ({
      model,
      reason: isUnsupported(model)
        ? ("tools_unsupported" as const)
        : isPaused(model)
          ? ("paused" as const)
          : ("cooling_down" as const),
    }));
  return { type: "try", model: chosen.model, index: chosen.index, skipped };
}

/**
 * The wait before attempt `retriesDone + 1` of the same model: the openai SDK's backoff (0.5 s doubling to
 * at most 8 s, less up to 25 % jitter), so that the router's retries pace as the SDK's did. `random` in
 * [0, 1).
 */
export function retryDelayMs(retriesDone: number, random: number): number {
  const baseMs = Math.min(500 * 2 ** retriesDone, 8_000);
  return Math.round(baseMs * (1 - random * 0.25));
}
