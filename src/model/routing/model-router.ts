import type { IModelFallback, TModelFallbackReason } from "../../contracts/index.js";
import type { IModelCompleteRequest } from "../llm-client.js";
import { isModelAbortError } from "../model-errors.js";
import type { IModelReply } from "../model-reply.js";
import type { IModelTransport } from "../model-transport.js";
import { ModelCooldowns } from "./model-cooldowns.js";
import { classifyModelFailure } from "./model-failure.js";
import { nextModel, retryDelayMs } from "./route-decision.js";

/** A named model as the router uses it: its transport (made with no SDK retries) and its routing settings. */
export interface IRoutedModel {
  /** The name requests choose it by. */
  name: string;
  transport: IModelTransport;
  /** Attempts again on this model once no fallback is left. */
  maxRetries: number;
  cooldownMs: number;
  /** Tried in order when this model fails. */
  fallbacks: readonly string[];
}

export interface IModelRouterOptions {
  /** Milliseconds, for cooldowns. @defaultValue performance.now */
  now?: () => number;
  /** In [0, 1), for the backoff's jitter. @defaultValue Math.random */
  random?: () => number;
  /** How long an endpoint model stays paused fleet-wide (0: not paused). @defaultValue never paused */
  pausedMs?: (endpointModel: string) => Promise<number>;
  /** A 429 asked `endpointModel`'s callers to wait `retryAfterMs`: pause it fleet-wide. */
  onRateLimited?: (endpointModel: string, retryAfterMs: number) => Promise<void>;
  /** Told of each switch to a fallback (metrics). A hook that throws is ignored. */
  onFallback?: (fallback: IModelFallback) => void;
}

/** A call as the router takes it: the request, with what depends on the model built for each model tried. */
export interface IRoutedRequest extends IModelCompleteRequest {
  /**
   * The parts of the request that depend on what a model supports (the response format, and the message
   * that shows the schema to a model without json_schema), built for each model tried: a fallback that
   * supports less gets a request it can take. Absent: every model gets the request as it is.
   */
  forModel?: (model: string) => Pick<IModelCompleteRequest, "messages" | "responseFormat">;
}

/** The request `model` is sent: the shared parts, and what `forModel` builds for that model. */
function requestFor(request: IRoutedRequest, model: string): IModelCompleteRequest {
  const { forModel, messages, responseFormat, ...shared } = request;
  if (forModel === undefined) return request;
  const shaped = forModel(model);
  return {
    ...shared,
    messages: shaped.messages,
    ...(shaped.responseFormat ? { responseFormat: shaped.responseFormat } : {}),
  };
}

/** What one routed call came to: the loop handles each (nothing is thrown through it but bugs). */
export type TRouteOutcome =
  | { type: "replied"; reply: IModelReply; model: string; fallbacks: IModelFallback[] }
  /** No model could answer: `error` is the last one's (a TG_MODEL_FAILED). */
  | { type: "failed"; error: unknown; fallbacks: IModelFallback[] }
  | { type: "aborted" }
  /** Every model left is paused by a 429: the run waits `retryAfterMs` (named by its endpoint model). */
  | { type: "rate-limited"; endpointModel: string; retryAfterMs: number; fallbacks: IModelFallback[] };

/**
 * The one retry loop of model calls (DESIGN-NOTES, "The model router"): the chosen model, then its
 * fallbacks in order on 429, 5xx, timeouts and connection errors, passing over models that are cooling
 * down or paused; retries with backoff only on the last model that can be tried. The transports make no
 * retries of their own (the SDK's maxRetries is 0), so a dead endpoint costs one attempt, not four.
 */
export class ModelRouter {
  readonly #models: ReadonlyMap<string, IRoutedModel>;
  readonly #cooldowns = new ModelCooldowns();
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #options: IModelRouterOptions;

  constructor(models: readonly IRoutedModel[], options: IModelRouterOptions = {}) {
    this.#models = new Map(models.map((model) => [model.name, model]));
    this.#now = options.now ?? (() => performance.now());
    this.#random = options.random ?? Math.random;
    this.#options = options;
  }

  has(name: string): boolean {
    return this.#models.has(name);
  }

  /** The model name the endpoint of `name` is asked for (prices, usage, pauses and metrics use it). */
  endpointModelOf(name: string): string {
    return this.#model(name).transport.model;
  }

  /** Asks `name` (then its fallbacks) for the next reply. */
  async complete(name: string, request: IRoutedRequest): Promise<TRouteOutcome> {
    const chosen = this.#model(name);
    const chain = [chosen.name, ...chosen.fallbacks];
    const pauses = new Map<string, number>();
    await Promise.all(
      chain.map(async (model) => pauses.set(model, await this.#pausedMs(this.endpointModelOf(model)))),
    );
    const view = {
      now: this.#now(),
      coolingUntil: (model: string) => this.#cooldowns.coolingUntil(model),
      pausedMs: (model: string) => pauses.get(model) ?? 0,
    };
    const fallbacks: IModelFallback[] = [];
    let current = chosen.name;
    let currentFailure: TModelFallbackReason | undefined;
    let lastError: unknown;
    let fromIndex = 0;
    for (;;) {
      view.now = this.#now();
      const step = nextModel(chain, fromIndex, view);
      if (step.type === "exhausted") return { type: "failed", error: lastError, fallbacks };
      if (step.type === "paused") {
        const endpointModel = this.endpointModelOf(step.model);
        return { type: "rate-limited", endpointModel, retryAfterMs: step.retryAfterMs, fallbacks };
      }
      if (step.model !== current) {
        const passedOver = step.skipped.find((skipped) => skipped.model === current)?.reason;
        const fallback = {
          from: current,
          to: step.model,
          reason: currentFailure ?? passedOver ?? "cooling_down",
        };
        fallbacks.push(fallback);
        this.#tell(fallback);
        current = step.model;
      }
      const model = this.#model(step.model);
      for (let retriesDone = 0; ; retriesDone += 1) {
        try {
          const reply = await model.transport.complete(requestFor(request, model.name));
          this.#cooldowns.recovered(model.name);
          return { type: "replied", reply, model: model.name, fallbacks };
        } catch (error) {
          if (request.abortSignal?.aborted || isModelAbortError(error)) return { type: "aborted" };
          const failure = classifyModelFailure(error);
          if (failure === undefined) return { type: "failed", error, fallbacks };
          lastError = error;
          currentFailure = failure.reason;
          this.#cooldowns.coolDown(model.name, this.#now() + model.cooldownMs);
          if (failure.retryAfterMs !== undefined) {
            pauses.set(model.name, failure.retryAfterMs);
            await this.#options.onRateLimited?.(model.transport.model, failure.retryAfterMs);
          }
          view.now = this.#now();
          const next = nextModel(chain, step.index + 1, view);
          if (next.type === "try" || view.pausedMs(model.name) > 0) break;
          if (retriesDone >= model.maxRetries) break;
          if (!(await sleepUnlessAborted(retryDelayMs(retriesDone, this.#random()), request.abortSignal)))
            return { type: "aborted" };
        }
      }
      // This model is done with; a paused one still counts among the models the call may wait for.
      fromIndex = step.index + 1;
      if (view.pausedMs(model.name) > 0 && nextModel(chain, fromIndex, view).type !== "try") {
        // Waits for the pause of the models tried that ends first.
        const [first] = chain
          .slice(0, fromIndex)
          .filter((name) => view.pausedMs(name) > 0)
          .sort((a, b) => view.pausedMs(a) - view.pausedMs(b));
        const waitFor = first ?? model.name;
        const endpointModel = this.endpointModelOf(waitFor);
        return { type: "rate-limited", endpointModel, retryAfterMs: view.pausedMs(waitFor), fallbacks };
      }
    }
  }

  #model(name: string): IRoutedModel {
    const model = this.#models.get(name);
    if (model === undefined) throw new RangeError(`No model named "${name}" is configured.`);
    return model;
  }

  async #pausedMs(endpointModel: string): Promise<number> {
    return this.#options.pausedMs ? this.#options.pausedMs(endpointModel) : 0;
  }

  #tell(fallback: IModelFallback): void {
    try {
      this.#options.onFallback?.(fallback);
    } catch {
      // Metrics never fail a call.
    }
  }
}

/** Waits `delayMs`; false as soon as the signal aborts (a cancelled run does not wait out a backoff). */
function sleepUnlessAborted(delayMs: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, delayMs);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
