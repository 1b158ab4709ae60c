/**
 * Why a model call moved to a fallback: the model answered 429 (`rate_limited`) or 5xx (`server_error`),
 * did not answer in time (`timeout`) or could not be reached (`unreachable`); or it was not tried because
 * it is cooling down after such a failure (`cooling_down`), paused fleet-wide by a 429 (`paused`), or
 * declares it cannot serve the step (`tools_unsupported`: the step offers tools, the model's
 * `supports.tools` is false; it is never sent the request).
 */
export const modelFallbackReasons = [
  "rate_limited",
  "server_error",
  "timeout",
  "unreachable",
  "cooling_down",
  "paused",
  "tools_unsupported",
] as const;

export type TModelFallbackReason = (typeof modelFallbackReasons)[number];

/** One switch of a model call to the next model. */
export interface IModelFallback {
  from: string;
  to: string;
  reason: TModelFallbackReason;
}
