import { httpToolErrorBodySchema } from "../contracts/index.js";
import { dynaError } from "../tools/index.js";
import { HttpToolFailure } from "./http-tool-failure.js";
import type { IHttpToolAnswer } from "./send-http-request.js";

/**
 * The tool's output from the service's answer, or what execute throws: a 2xx answer's JSON body is the
 * output (an empty body is `null`); a non-2xx answer whose JSON body has a `userMessage` is a dynaError the
 * model reads (`code`, `status` — the answer's status when the body has none — and `canRetry`); anything
 * else (another status, a body that is not JSON) is an HttpToolFailure, the generic status-500 line.
 */
export function readToolAnswer(answer: IHttpToolAnswer): unknown {
  const text = answer.body.toString("utf8");
  const ok = answer.status >= 200 && answer.status <= 299;
  if (ok && text.trim() === "") return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new HttpToolFailure(
      ok ? "invalid_response" : "error_status",
      `the service answered ${answer.status} with a body that is not JSON`,
      answer.status,
      { cause: error },
    );
  }
  if (ok) return body;
  const parsed = httpToolErrorBodySchema.safeParse(body);
  if (!parsed.success) {
    throw new HttpToolFailure(
      "error_status",
      `the service answered ${answer.status} without a userMessage`,
      answer.status,
    );
  }
  const serviceError = parsed.data;
  const error = dynaError({
    message: `the service answered ${answer.status}`,
    userMessage: serviceError.userMessage,
    status: serviceError.status ?? answer.status,
    ...(serviceError.canRetry !== undefined ? { canRetry: serviceError.canRetry } : {}),
    data: { httpStatus: answer.status },
  });
  // dynaError types `code` as a number (as the dyna-error package does); the seed's error line takes a
  // string code as well.
  throw serviceError.code !== undefined ? Object.assign(error, { code: serviceError.code }) : error;
}
