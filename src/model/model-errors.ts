import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { TollgateError } from "../errors/index.js";
import { ModelStreamIdleError } from "./stream-idle-watch.js";

/**
 * Whether an error from `LLMClient.complete` means the caller's abortSignal stopped the request
 * (then nothing failed: the run was cancelled). The SDK throws APIUserAbortError; a bare
 * DOMException "AbortError" can surface when the abort lands while the response body is read.
 */
export function isModelAbortError(error: unknown): boolean {
  return error instanceof APIUserAbortError || (error instanceof Error && error.name === "AbortError");
}

/** What the request was, for the message of a TG_MODEL_FAILED. */
export interface IModelRequestContext {
  baseURL: string;
  model: string;
  /** HTTP requests made, retries included. */
  attempts: number;
  requestTimeoutMs: number;
}

/**
 * The error callers see once the SDK gave up (retries exhausted, or an error it does not retry):
 * TG_MODEL_FAILED with the HTTP status and the endpoint's own error text, the SDK's error as cause.
 */
export function toModelFailedError(error: unknown, context: IModelRequestContext): TollgateError {
  const where = `model "${context.model}" at ${context.baseURL}`;
  const tries = context.attempts === 1 ? "1 attempt" : `${context.attempts} attempts`;
  const options = { cause: error };
  if (error instanceof ModelStreamIdleError) {
    return new TollgateError(
      "TG_MODEL_FAILED",
      `The ${where} streamed nothing for ${error.streamIdleTimeoutMs} ms mid-reply (${tries}).`,
      { attempts: context.attempts, timedOut: true, streamIdleTimeoutMs: error.streamIdleTimeoutMs },
      options,
    );
  }
  // Timeout first: APIConnectionTimeoutError is also an APIConnectionError.
  if (error instanceof APIConnectionTimeoutError) {
    return new TollgateError(
      "TG_MODEL_FAILED",
      `The ${where} did not answer within ${context.requestTimeoutMs} ms (${tries}).`,
      { attempts: context.attempts, timedOut: true, requestTimeoutMs: context.requestTimeoutMs },
      options,
    );
  }
  if (error instanceof APIConnectionError) {
    return new TollgateError(
      "TG_MODEL_FAILED",
      `The ${where} could not be reached (${tries}): ${describeCause(error)}.`,
      { attempts: context.attempts },
      options,
    );
  }
  if (error instanceof APIError && error.status !== undefined) {
    return new TollgateError(
      "TG_MODEL_FAILED",
      `The ${where} answered HTTP ${error.status} (${tries}): ${endpointErrorText(error)}`,
      { status: error.status, attempts: context.attempts, endpointCode: error.code ?? undefined },
      options,
    );
  }
  return new TollgateError(
    "TG_MODEL_FAILED",
    `The request to the ${where} failed (${tries}): ${error instanceof Error ? error.message : String(error)}`,
    { attempts: context.attempts },
    options,
  );
}

/** The endpoint's `error.message` when it sent one in OpenAI's shape, else the SDK's summary. */
function endpointErrorText(error: APIError): string {
  const body = error.error;
  if (typeof body === "object" && body !== null && "message" in body && typeof body.message === "string") {
    return body.message;
  }
  return error.message;
}

/** undici reports "fetch failed" and hides the reason (ECONNREFUSED, ...) in the cause. */
function describeCause(error: Error): string {
  const cause = error.cause;
  if (cause instanceof Error) {
    const innerCause = cause.cause instanceof Error ? `: ${cause.cause.message}` : "";
    return `${cause.message}${innerCause}`;
  }
  return error.message;
}
