import { CliError } from "../cli-errors.js";

/** The API's error body (DESIGN §8): `{ error: { code, message, details? } }`. */
interface IApiErrorBody {
  error?: {
    code?: unknown;
    message?: unknown;
    details?: { issues?: Array<{ path?: unknown; message?: unknown }> };
  };
}

/** The API answered with an error status; the message carries its code, text and field issues. */
export class ApiRequestError extends CliError {
  readonly status: number;
  readonly code: string | undefined;

  constructor(status: number, code: string | undefined, message: string) {
    super(message);
    this.name = "ApiRequestError";
    this.status = status;
    this.code = code;
  }
}

export async function apiRequestErrorOf(
  method: string,
  path: string,
  response: Response,
): Promise<ApiRequestError> {
  const text = await response.text().catch(() => "");
  let body: IApiErrorBody | undefined;
  try {
    body = JSON.parse(text) as IApiErrorBody;
  } catch {
    body = undefined;
  }
  const code = typeof body?.error?.code === "string" ? body.error.code : undefined;
  const message = typeof body?.error?.message === "string" ? body.error.message : text.slice(0, 200);
  const issues = (body?.error?.details?.issues ?? [])
    .map((issue) => `${String(issue.path ?? "")}: ${String(issue.message ?? "")}`)
    .join("; ");
  const summary = `${method} ${path} failed: ${response.status}${code ? ` ${code}` : ""}: ${message}`;
  return new ApiRequestError(response.status, code, issues ? `${summary} (${issues})` : summary);
}

/** fetch failed before any answer: say where it tried and what to check. */
export function unreachableApiError(baseUrl: string, error: unknown): CliError {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const reason =
    typeof cause?.code === "string"
      ? cause.code
      : typeof cause?.message === "string"
        ? cause.message
        : error instanceof Error
          ? error.message
          : String(error);
  return new CliError(
    `cannot reach the Tollgate API at ${baseUrl} (${reason}): is \`tollgate api\` running there? Set TOLLGATE_URL to its address.`,
    { cause: error },
  );
}
