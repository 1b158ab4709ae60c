import type { IModelFallback, TModelFallbackReason } from "../../contracts/index.js";
import { TollgateError } from "../../errors/index.js";
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
  /** What the model declares it can serve; a call needing what it lacks never reaches it. @defaultValue all */
  supports?: { tools: boolean };
}

/** A model passed over because it cannot serve the call (DESIGN-NOTES, "A model is never sent what it cannot serve"). */
export interface IModelSkipped {
  model: string;
  reason: "tools_unsupported";
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
  /** Told of each model a call passes over because it cannot serve it (metrics, log). Errors ignored. */
  onSkipped?: (skipped: IModelSkipped) => void;
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
  // Assigned, not spread: `shared` lacks `messages`, and a spread clone given a field it lacks costs a map
  // per call (withFields in contracts).
  return Object.assign(
    {},
    shared,
    shaped.responseFormat
      ? { messages: shaped.messages, responseFormat: shaped.responseFormat }
      : { messages: shaped.messages },
  );
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
    // A step that offers tools is never sent to a model that declares it takes none.
    const unsupported = (model: string) =>
      request.tools.length > 0 && this.#model(model).supports?.tools === false;
    if (chain.every(unsupported)) {
      for (const model of chain) this.#tellSkipped({ model, reason: "tools_unsupported" });
      return { type: "failed", error: unservableError(chain), fallbacks: [] };
    }
    const pauses = new Map<string, number>();
    await Promise.all(
      chain.map(async (model) => pauses.set(model, await this.#pausedMs(this.endpointModelOf(model)))),
    );
    const view = {
      now: this.#now(),
      coolingUntil: (model: string) => this.#cooldowns.coolingUntil(model),
      pausedMs: (model: string) => pauses.get(model) ?? 0,
      unsupported,
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
        let reason: TModelFallbackReason = currentFailure ?? passedOver ?? "cooling_down";
        // A model that cannot serve the call is a hop of its own in the call's path, so that a reader sees
        // why it was not asked: from the model before it, then on from it as `tools_unsupported`.
        for (const skipped of step.skipped) {
          if (skipped.reason !== "tools_unsupported") continue;
          this.#tellSkipped({ model: skipped.model, reason: skipped.reason });
          if (skipped.model === current) continue;
          this.#switch(fallbacks, { from: current, to: skipped.model, reason });
          current = skipped.model;
          reason = skipped.reason;
        }
        this.#switch(fallbacks, { from: current, to: step.model, reason });
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

  #switch(fallbacks: IModelFallback[], fallback: IModelFallback): void {
    fallbacks.push(fallback);
    try {
      this.#options.onFallback?.(fallback);
    } catch {
      // Metrics never fail a call.
    }
  }

  #tellSkipped(skipped: IModelSkipped): void {
    try {
      this.#options.onSkipped?.(skipped);
    } catch {
      // Metrics never fail a call.
    }
  }
}

/** No model of `chain` takes tools, and the step offers some: a configuration the call cannot get past. */
function unservableError(chain: readonly string[]): TollgateError {
  const names = chain.map((model) => `"${model}"`).join(", ");
  return new TollgateError(
    "TG_MODEL_UNSUPPORTED",
    `The step offers tools, and no model it may use supports tools (supports.tools is false for ${names}).`,
    { models: [...chain], missing: ["tools"] },
  );
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
