import { errorCatalogue, type TErrorCode } from "./catalogue.js";

/** A field-level problem, e.g. from zod: `{ path: "userContext.userId", message: "Required" }`. */
export interface IFieldIssue {
  path: string;
  message: string;
}

export interface ITollgateErrorDetails {
  issues?: IFieldIssue[];
  [key: string]: unknown;
}

const brand = Symbol.for("tollgate.error");

/** The one error class Tollgate throws to its callers: a stable code, its HTTP status, and details. */
export class TollgateError extends Error {
  readonly code: TErrorCode;
  readonly httpStatus: number;
  readonly details: ITollgateErrorDetails | undefined;
  readonly [brand] = true;

  constructor(
    code: TErrorCode,
    message: string,
    details?: ITollgateErrorDetails,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "TollgateError";
    this.code = code;
    this.httpStatus = errorCatalogue[code].status;
    this.details = details;
  }

  /** True for a TollgateError from any copy of this package. */
  static isInstance(value: unknown): value is TollgateError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[brand] === true;
  }

  static is(value: unknown, code: TErrorCode): value is TollgateError {
    return TollgateError.isInstance(value) && value.code === code;
  }

  toJSON(): { code: TErrorCode; message: string; details?: ITollgateErrorDetails } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}
