import { errorCatalogue, type TErrorCode } from "../../errors/index.js";
import type { IRouteSpec } from "../http/route-definition.js";

/**
 * Answered to any request before a route sees it: a URL whose percent-encoding is invalid (400), headers
 * and body that do not arrive within the request timeout (408), headers over 16 KiB (431).
 */
const beforeRoutingCodes: readonly TErrorCode[] = [
  "TG_BAD_REQUEST",
  "TG_REQUEST_TIMEOUT",
  "TG_HEADERS_TOO_LARGE",
];

/** The errors a route may answer with: its own, plus those that follow from its access and input. */
export function errorCodesOf(spec: IRouteSpec): TErrorCode[] {
  const codes = new Set<TErrorCode>(spec.errors ?? []);
  if (spec.access !== "public") codes.add("TG_UNAUTHORIZED");
  if (spec.access !== "public" && spec.access !== "authenticated") codes.add("TG_FORBIDDEN");
  const { body, params, querystring, headers } = spec.schemas;
  if (body || params || querystring || headers) codes.add("TG_INVALID_REQUEST");
  if (body || spec.rawForm) {
    codes.add("TG_BAD_REQUEST");
    codes.add("TG_PAYLOAD_TOO_LARGE");
  }
  for (const code of beforeRoutingCodes) codes.add(code);
  codes.add("TG_INTERNAL");
  return [...codes];
}

/** OpenAPI response objects for those errors, one per status, each listing its codes. */
export function errorResponsesOf(spec: IRouteSpec, errorSchemaRef: string): Record<string, object> {
  const byStatus = new Map<number, TErrorCode[]>();
  for (const code of errorCodesOf(spec)) {
    const status = errorCatalogue[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, object> = {};
  for (const [status, codes] of [...byStatus].sort(([left], [right]) => left - right)) {
    responses[String(status)] = {
      description: codes.map((code) => `${code}: ${errorCatalogue[code].summary}`).join(" "),
      content: { "application/json": { schema: { $ref: errorSchemaRef } } },
    };
  }
  return responses;
}
