const brand = Symbol.for("tollgate.model-rate-limited");

/**
 * The model endpoint asked to slow down (HTTP 429 with `retry-after` or `retry-after-ms`), or another
 * worker already saw it ask: no model call for `model` before `retryAfterMs` from now. Thrown only by an
 * LLMClient made with `pauseOnRateLimit`; the run worker parks the run until then instead of letting the
 * SDK sleep in a worker slot.
 */
export class ModelRateLimitedError extends Error {
  readonly [brand] = true;

  constructor(
    readonly model: string,
    readonly retryAfterMs: number,
  ) {
    super(`The model "${model}" is rate limited for ${retryAfterMs} ms.`);
    this.name = "ModelRateLimitedError";
  }

  static isInstance(error: unknown): error is ModelRateLimitedError {
    return typeof error === "object" && error !== null && (error as { [brand]?: unknown })[brand] === true;
  }
}

/**
 * How long a response asks the caller to wait, from `retry-after-ms` (OpenAI's) or `retry-after` (seconds
 * or an HTTP date), the way the openai SDK reads them; undefined when it asks nothing or zero.
 */
export function retryAfterMsOf(headers: Headers, now: number = Date.now()): number | undefined {
  const milliseconds = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(milliseconds)) return milliseconds > 0 ? Math.ceil(milliseconds) : undefined;
  const header = headers.get("retry-after");
  if (header === null) return undefined;
  const seconds = Number.parseFloat(header);
  const waitMs = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  return Number.isFinite(waitMs) && waitMs > 0 ? Math.ceil(waitMs) : undefined;
}
