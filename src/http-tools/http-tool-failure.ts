/** Why an HTTP tool call produced no usable answer: logged with the call, never shown to the model. */
export type THttpToolFailureReason =
  | "restricted_address"
  | "redirect_refused"
  | "too_many_redirects"
  | "response_too_large"
  | "connection_failed"
  | "invalid_response"
  | "error_status";

/**
 * A failure of the HTTP tool's transport or of the service: the model reads the generic status-500 line
 * (the input was not the cause), the worker's log reads this message and `reason`.
 */
export class HttpToolFailure extends Error {
  constructor(
    readonly reason: THttpToolFailureReason,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "HttpToolFailure";
  }
}
