import { gatewayToolCodes, type IToolCallFailure, toolErrorLine, unexpectedFailure } from "./model-text.js";

/** The fields of a dyna-error the model may read. The rest (message, data, stack) is for developers only. */
interface IDynaErrorShape {
  isDynaError: true;
  userMessage?: unknown;
  code?: unknown;
  status?: unknown;
  canRetry?: unknown;
}

/**
 * A dynaError is a plain object, not an Error instance, recognised by its flag: Tollgate's own and one made by
 * the dyna-error package in a user's tool alike.
 */
export function isDynaError(error: unknown): error is IDynaErrorShape {
  return (
    typeof error === "object" && error !== null && (error as { isDynaError?: unknown }).isDynaError === true
  );
}

/**
 * What the model reads for an error a tool threw. Only a dynaError with a userMessage speaks to the model,
 * and only through its userMessage, code, status and canRetry; anything else is a bug or an outage the
 * input did not cause, and nothing of it reaches the model.
 */
export function toolErrorToFailure(error: unknown): IToolCallFailure {
  if (!isDynaError(error) || typeof error.userMessage !== "string" || error.userMessage.trim() === "") {
    return unexpectedFailure();
  }
  const code =
    typeof error.code === "string" || typeof error.code === "number"
      ? error.code
      : gatewayToolCodes.TOOL_ERROR;
  const status = Number.isInteger(error.status) ? (error.status as number) : 500;
  const canRetry = typeof error.canRetry === "boolean" ? error.canRetry : undefined;
  return {
    isError: true,
    text: toolErrorLine({ code, status, userMessage: error.userMessage, canRetry }),
    status,
    errorCode: code,
    outcome: "error",
  };
}
