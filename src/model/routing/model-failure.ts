import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import { TollgateError } from "../../errors/index.js";
import { retryAfterMsOf } from "../model-rate-limited.js";

/** A failure the router moves on from: to a fallback, or to another attempt of the last model. */
export interface IRetryableModelFailure {
  reason: "rate_limited" | "server_error" | "timeout" | "unreachable";
  /** A 429's `retry-after(-ms)`: the model is then paused fleet-wide for that long. */
  retryAfterMs?: number;
}

/**
 * Whether a transport's error is worth another model or attempt (429, 408, 409, 5xx, timeouts and
 * connection errors, as the openai SDK retries them), and why; undefined for an error no other attempt
 * would change (a 400, a 401, an invalid reply), which fails the call at once. Reads the SDK's error,
 * which a TG_MODEL_FAILED carries as its cause: the type and status, never the message.
 */
export function classifyModelFailure(error: unknown): IRetryableModelFailure | undefined {
  const sdkError = TollgateError.isInstance(error) ? error.cause : error;
  // Timeout first: APIConnectionTimeoutError is also an APIConnectionError.
  if (sdkError instanceof APIConnectionTimeoutError) return { reason: "timeout" };
  if (sdkError instanceof APIConnectionError) return { reason: "unreachable" };
  if (!(sdkError instanceof APIError) || sdkError.status === undefined) return undefined;
  const status = sdkError.status;
  if (status === 429) {
    const retryAfterMs = sdkError.headers ? retryAfterMsOf(sdkError.headers) : undefined;
    return retryAfterMs === undefined ? { reason: "rate_limited" } : { reason: "rate_limited", retryAfterMs };
  }
  if (status === 408) return { reason: "timeout" };
  if (status === 409 || status >= 500) return { reason: "server_error" };
  return undefined;
}
