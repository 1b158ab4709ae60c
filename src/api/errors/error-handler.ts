import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { describeFieldIssues, type IFieldIssue, TollgateError } from "../../errors/index.js";
import { auditLog } from "../../observability/index.js";
import { isRedisUnavailableError } from "../../producer/index.js";
import { principalIfAny } from "../auth/authenticate.js";
import { errorReply, type IErrorReply } from "./error-envelope.js";

/** What a caller reads for any fault of ours: the detail stays in the log, found by the request id. */
const internalMessage = "An internal error occurred; the server log has the detail.";

/**
 * Maps anything a route, hook or fastify itself threw to the one error shape. Only what is meant for the
 * caller is shown: a TollgateError's message (except a 500's), fastify's own 4xx messages, and field
 * issues. Anything else is a 503 TG_REDIS_UNAVAILABLE when it is a Redis failure (a reply such as OOM,
 * READONLY, MOVED, CROSSSLOT; a command timeout; a closed connection) or while the client's connection
 * is down, else a 500 TG_INTERNAL; either way its text and stack go to the log only.
 */
export function toErrorReply(
  error: unknown,
  request: FastifyRequest,
  redisReachable: () => boolean,
): IErrorReply {
  // A 500 that wraps a Redis failure (a script's reply, a lost connection) is still an outage.
  const wrapsRedisFailure = TollgateError.isInstance(error) && isRedisUnavailableError(error.cause);
  if (TollgateError.isInstance(error) && !(error.httpStatus === 500 && wrapsRedisFailure)) {
    return fromTollgateError(error, request);
  }
  if (hasZodFastifySchemaValidationErrors(error)) return fromValidationError(error);
  if (clientAbortedBody(error, request)) {
    // The caller hung up while sending its body: nobody reads this answer, and it is no fault of ours.
    request.log.info("the client aborted the request while sending its body");
    return errorReply("TG_BAD_REQUEST", "The request body ended before its length.");
  }
  if (isFastifyClientError(error)) {
    if (error.code === "FST_ERR_MAX_PARAM_LENGTH") {
      const issue = { path: "", message: "a path id is longer than 256 characters" };
      return errorReply("TG_INVALID_REQUEST", `Invalid params: ${issue.message}`, {
        in: "params",
        issues: [issue],
      });
    }
    if (error.code === "FST_ERR_BAD_URL") {
      return errorReply("TG_BAD_REQUEST", "The URL's percent-encoding is invalid.", {
        fastifyCode: error.code,
      });
    }
    if (error.statusCode === 413) {
      return errorReply("TG_PAYLOAD_TOO_LARGE", "The request body is over the size limit.");
    }
    // Malformed JSON, an empty JSON body, an unsupported content type, a bad Content-Length.
    return errorReply("TG_BAD_REQUEST", error.message, { fastifyCode: error.code });
  }
  if (isRedisUnavailableError(error) || !redisReachable()) return redisUnavailable(error, request);
  request.log.error({ err: error }, "request failed with an internal error");
  return errorReply("TG_INTERNAL", internalMessage, { requestId: request.id });
}

/**
 * The store went away under the request: a condition to retry, not a bug. One answer whatever the way it
 * showed (a closed connection, a command or readiness timeout, a full Redis; one node or a cluster): the
 * cause goes to the log, since its text would only describe our internals.
 */
function redisUnavailable(error: unknown, request: FastifyRequest): IErrorReply {
  request.log.warn({ err: error }, "request failed: Redis is unreachable or refused the command");
  return errorReply("TG_REDIS_UNAVAILABLE", "Redis cannot be reached; retry later.");
}

function fromTollgateError(error: TollgateError, request: FastifyRequest): IErrorReply {
  if (error.code === "TG_REDIS_UNAVAILABLE") return redisUnavailable(error, request);
  if (error.httpStatus === 500) {
    // A 500 TollgateError (corrupt state, a broken tool definition) describes our internals.
    request.log.error({ err: error }, "request failed with an internal error");
    return {
      status: 500,
      body: { error: { code: error.code, message: internalMessage, details: { requestId: request.id } } },
    };
  }
  if (error.httpStatus >= 500) request.log.warn({ err: error }, "request failed");
  if (error.code === "TG_RATE_LIMITED") auditLimitHit(error, request);
  return { status: error.httpStatus, body: { error: error.toJSON() } };
}

/** A limit a caller ran into (runs per minute, open streams) is an audit line: who, which limit. */
function auditLimitHit(error: TollgateError, request: FastifyRequest): void {
  const principal = principalIfAny(request);
  const details = (error.details ?? {}) as { scope?: unknown };
  auditLog(request.log, {
    subject: principal?.subject ?? "(anonymous)",
    tenant: principal?.tenant ?? "default",
    action: "limit.hit",
    targetId: typeof details.scope === "string" ? details.scope : (request.routeOptions.url ?? request.url),
    outcome: "refused",
    detail: { route: request.routeOptions.url ?? request.url, ...error.details },
  });
}

type TValidationError = FastifyError & {
  validation: Array<{ instancePath: string; message?: string }>;
  validationContext?: string;
};

function fromValidationError(error: TValidationError): IErrorReply {
  const location = error.validationContext ?? "body";
  const issues: IFieldIssue[] = error.validation.map((issue) => ({
    // "/userContext/userId" → "userContext.userId", the dotted form the producer's own errors use.
    path: issue.instancePath.split("/").slice(1).join("."),
    message: issue.message ?? "invalid",
  }));
  return errorReply("TG_INVALID_REQUEST", `Invalid ${location}: ${describeFieldIssues(issues)}`, {
    in: location,
    issues,
  });
}

/** Node's error for a request whose connection closed mid-body, as fastify's body reader passes it on. */
function clientAbortedBody(error: unknown, request: FastifyRequest): boolean {
  const { code } = (error ?? {}) as { code?: unknown };
  return code === "ECONNRESET" && (request.raw.readableAborted || request.raw.destroyed);
}

function isFastifyClientError(error: unknown): error is FastifyError & { statusCode: number } {
  if (typeof error !== "object" || error === null) return false;
  const { code, statusCode } = error as { code?: unknown; statusCode?: unknown };
  return (
    typeof code === "string" &&
    code.startsWith("FST_") &&
    typeof statusCode === "number" &&
    statusCode >= 400 &&
    statusCode < 500
  );
}

/** The error handler the app installs; `redisReachable` tells an outage from a bug. */
export function createErrorHandler(redisReachable: () => boolean) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const { status, body } = toErrorReply(error, request, redisReachable);
    if (status === 401 && !reply.hasHeader("www-authenticate")) {
      reply.header("www-authenticate", 'Bearer realm="tollgate"');
    }
    const retryAfterMs = retryAfterMsOf(error);
    if (status === 429 && retryAfterMs !== undefined) {
      reply.header("retry-after", String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
    }
    return reply.code(status).type("application/json; charset=utf-8").send(body);
  };
}

/** A rate limit's `details.retryAfterMs`: the `Retry-After` header says it in whole seconds. */
function retryAfterMsOf(error: unknown): number | undefined {
  if (!TollgateError.isInstance(error)) return undefined;
  const value = (error.details as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Unknown routes: 404 in the same shape. */
export function handleNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { status, body } = errorReply("TG_ROUTE_NOT_FOUND", `No route ${request.method} ${request.url}.`);
  return reply.code(status).send(body);
}
