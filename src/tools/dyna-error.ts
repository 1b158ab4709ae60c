/**
 * The seed's `dynaError`, Tollgate's own: the same function, object and TypeScript types as the npm package
 * `dyna-error` 4.0.13 (MIT), so tools written against either read the same. The package is not a dependency:
 * its only 4.x release declares `node <21` and `npm <11`, which made every `npm install` on a supported Node
 * warn (EBADENGINE). An error a tool throws with the package itself is recognised all the same: the model's
 * reading goes by the `isDynaError` flag (tool-error.ts), not by which copy made the object.
 */

/** What `dynaError` is given: the package's `IErrorConfig`, field for field. */
export interface IErrorConfig {
  /** Error message intended for debugging purposes. */
  message: string;
  /** User-friendly error message, ideally translated and devoid of sensitive information. */
  userMessage?: string;
  /** Developer-assigned error code for identifying the point where the error occurred. */
  code?: number;
  /** Network error status, an HTTP code or any status understandable by other parts of the application. */
  status?: number;
  /** Error data intended for debugging, may contain sensitive information. */
  // biome-ignore lint/suspicious/noExplicitAny: the package's type; `unknown` would break code written for it.
  data?: any;
  /** Error data that can be safely delivered to the client or end-user. */
  // biome-ignore lint/suspicious/noExplicitAny: the package's type, as `data`.
  userData?: any;
  /** Reference to the parent error. */
  // biome-ignore lint/suspicious/noExplicitAny: the package's type, as `data`.
  parentError?: any;
  /** Validation errors associated with the error. */
  // biome-ignore lint/suspicious/noExplicitAny: the package's type, as `data`.
  validationErrors?: any;
  /**
   * Collect the stack or not: an error shipped to a client may not want it.
   *
   * @defaultValue true
   */
  stack?: boolean;
  /** Whether the action that caused this error can be retried. */
  canRetry?: boolean;
  /**
   * With a `code`, the message is prefixed with it (`"4711: message"`).
   *
   * @defaultValue false
   */
  prefixMessageWithCode?: boolean;
  /** The package's internal field: the stack text to keep (an Error's, when one is converted). */
  // biome-ignore lint/suspicious/noExplicitAny: the package's type, as `data`.
  _applyStackContent?: any;
}

/** What `dynaError` returns: a plain object shaped like an Error (not an instance of one), flagged. */
export interface IDynaError extends Error {
  date?: Date;
  message: string;
  userMessage?: string;
  code?: number;
  status?: number;
  // biome-ignore lint/suspicious/noExplicitAny: the package's type, as IErrorConfig's.
  data?: any;
  // biome-ignore lint/suspicious/noExplicitAny: the package's type, as IErrorConfig's.
  userData?: any;
  // biome-ignore lint/suspicious/noExplicitAny: the package's type, as IErrorConfig's.
  parentError?: any;
  stack?: string;
  // biome-ignore lint/suspicious/noExplicitAny: the package's type, as IErrorConfig's.
  validationErrors?: any;
  canRetry?: boolean;
  isDynaError?: true;
}

/**
 * The error a tool throws to tell the model what went wrong. A string is the message; an Error keeps its
 * message and stack; an object with a `message` is an `IErrorConfig`; anything else becomes "Unknown
 * nature of error" with the value under `parentError.error`. Fields left undefined are absent.
 */
export const dynaError = (errorArg: string | Error | IErrorConfig | unknown): IDynaError => {
  if (typeof errorArg === "string") return fromConfig({ message: errorArg });
  if (errorArg instanceof Error) {
    return fromConfig({ message: errorArg.message, _applyStackContent: errorArg.stack });
  }
  if (hasMessage(errorArg)) return fromConfig(errorArg);
  return fromConfig({ message: "Unknown nature of error", parentError: { error: errorArg } });
};

/** The package's test: any value with a truthy `message` is a config. */
function hasMessage(value: unknown): value is IErrorConfig {
  return Boolean(value) && Boolean((value as { message?: unknown }).message);
}

function fromConfig(config: IErrorConfig): IDynaError {
  const { code, prefixMessageWithCode = false, stack = true, _applyStackContent } = config;
  const message = [code !== undefined && prefixMessageWithCode ? `${code}:` : "", config.message]
    .filter(Boolean)
    .join(" ");
  const error: Record<string, unknown> = {
    date: new Date(),
    name: "Error",
    code,
    status: config.status,
    message,
    userMessage: config.userMessage,
    data: config.data,
    userData: config.userData,
    parentError: config.parentError,
    validationErrors: config.validationErrors,
    canRetry: config.canRetry,
    stack: _applyStackContent ? _applyStackContent : stack ? new Error(message).stack : undefined,
    isDynaError: true,
  };
  for (const key of Object.keys(error)) if (error[key] === undefined) delete error[key];
  return error as unknown as IDynaError;
}
