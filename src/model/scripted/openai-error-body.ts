/** An error body in OpenAI's shape, which the SDK reads into `APIError.error`. */
export interface IOpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export function openAIErrorBody(
  status: number,
  message: string,
  details: { param?: string; code?: string } = {},
): IOpenAIErrorBody {
  return {
    error: {
      message,
      type: errorTypeOf(status),
      param: details.param ?? null,
      code: details.code ?? null,
    },
  };
}

/** The `type` OpenAI uses for each class of status. */
function errorTypeOf(status: number): string {
  if (status === 429) {
    return "requests";
  }
  if (status === 404) {
    return "not_found_error";
  }
  return status >= 500 ? "server_error" : "invalid_request_error";
}
