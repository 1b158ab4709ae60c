import { randomUUID } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from "fastify";
import { validatorCompiler } from "fastify-type-provider-zod";
import { Registry } from "prom-client";
import { z } from "zod";
import { TollgateError } from "../errors/index.js";
import { assertLinkSecretFor } from "../links/index.js";
import {
  auditLog,
  createLogger,
  createMetrics,
  type ITollgateMetrics,
  type ITracing,
} from "../observability/index.js";
import { clientPortOf, type IGatewayClientPort, withRedisBudget } from "../producer/index.js";
import { connectSlackTargets } from "../slack/index.js";
import { API_DEFAULTS, type IApiOptions, resolveApiSettings } from "./api-options.js";
import { authenticate, type IAuthenticator } from "./auth/authenticate.js";
import { createAuthenticator } from "./auth/create-authenticator.js";
import { registerConsole } from "./console/console-routes.js";
import { createClientErrorHandler } from "./errors/client-error-handler.js";
import { createErrorHandler, handleNotFound } from "./errors/error-handler.js";
import { drainOversizedBody } from "./http/drain-oversized-body.js";
import { EarlyAnswers } from "./http/early-answers.js";
import { forbiddenJsonKey } from "./http/forbidden-json-key.js";
import type { IRouteContext } from "./http/route-context.js";
import type { IApiRoute, IRouteSpec } from "./http/route-definition.js";
import { tracedHandler } from "./http/traced-handler.js";
import { OpenMcpRequests } from "./mcp/open-mcp-requests.js";
import { buildOpenApiDocument } from "./openapi/build-openapi-document.js";
import { apiRoutes } from "./route-table.js";
import { registerMcpStreamRefusal } from "./routes/mcp-routes.js";
import { maxIdLength } from "./schemas/request-schemas.js";
import { EventStreams } from "./sse/event-streams.js";

/**
 * Builds the HTTP API on a GatewayClient: routes, auth, validation and the one error shape. Not yet
 * listening (use `startApi`, or `app.inject()` in tests); close() ends open event streams, drains
 * in-flight requests, and closes the client when `ownsClient` is set.
 */
/** However small the body limit, a client's oversized body is read (and dropped) up to this much. */
const maxDrainFloorBytes = 64 * 1024 * 1024;

export async function buildApi(options: IApiOptions): Promise<FastifyInstance> {
  const settings = resolveApiSettings(options);
  // A target that sends approval links needs this API to check them: refused before anything starts.
  const port = clientPortOf(options.client);
  assertLinkSecretFor(port.gateway.settings.notifications, port.options.linkSecret);
  const logger = options.logger ?? createLogger({ name: "tollgate-api" });
  // A Slack target whose secrets are not in the environment is refused as early.
  const slack = connectSlackTargets({
    settings: port.gateway.settings.notifications,
    env: options.env ?? process.env,
    role: "api",
    logger,
    timeoutMs: API_DEFAULTS.slackCallTimeoutMs,
  });
  const authenticator = createAuthenticator(options, logger);
  const errorHandler = createErrorHandler(() => options.client.isConnected());
  const earlyAnswers = new EarlyAnswers();
  const app: FastifyInstance = Fastify<Server, IncomingMessage, ServerResponse, FastifyBaseLogger>({
    loggerInstance: logger,
    bodyLimit: settings.bodyLimitBytes,
    // Every request, authenticated or not, must have arrived (headers and body) within this: a body
    // that never ends is answered 408 and its connection closed. Node checks the open requests at an
    // interval (30 s by default, which would let a short timeout run long): a tenth of it here.
    requestTimeout: settings.requestTimeoutMs,
    http: {
      requestTimeout: settings.requestTimeoutMs,
      headersTimeout: Math.min(60_000, settings.requestTimeoutMs),
      connectionsCheckingInterval: checkingIntervalOf(settings.requestTimeoutMs),
    },
    // What Node's parser refuses (a timeout, headers over 16 KiB, bytes that are not HTTP) is answered
    // in the error envelope too, not in fastify's own shape.
    clientErrorHandler: createClientErrorHandler(logger, (socket) => earlyAnswers.has(socket)),
    // The router's limit is the schemas' (256), so an id is refused by one rule, in the error envelope.
    routerOptions: { maxParamLength: maxIdLength },
    // A bad percent-encoding or an over-long path id is refused before any route: in the envelope too.
    frameworkErrors: (error, request, reply) => errorHandler(error, request, reply),
    requestIdHeader: false,
    genReqId: requestIdOf,
    logController: new LogController({
      requestIdLogLabel: "requestId",
      // Probes and scrapes come every few seconds; a line each would drown the requests that matter.
      disableRequestLogging: (request: { url?: string }) => isProbe(request.url),
    }),
    // Requests that arrive while closing are served (and their connection closed after): fastify's
    // own 503 body would break the one error shape clients parse.
    return503OnClosing: false,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(handleNotFound);
  readJsonBodiesOnly(app);

  const eventStreams = new EventStreams({
    maxStreams: settings.sseMaxStreams,
    maxStreamsPerSubject: settings.sseMaxStreamsPerToken,
  });
  const mcpRequests = new OpenMcpRequests();
  const metrics = options.metrics ?? (options.registry ? undefined : defaultMetrics(port));
  const context: IRouteContext = {
    client: options.client,
    redisContact: () => port.redisContact(),
    settings,
    registry: options.registry ?? metrics?.registry ?? new Registry(),
    metrics,
    eventStreams,
    mcpRequests,
    slack,
    openApiDocument: () => buildOpenApiDocument(settings),
  };
  // A run this API cancels that no job holds any more is ended here, not by a worker: counted here.
  const stopObserving = metrics ? port.observeRunEndings({ metrics, logger }) : undefined;
  const redisBudgetMs = port.options.commandTimeoutMs;
  for (const route of apiRoutes.filter(({ spec }) => spec.rawForm === undefined))
    registerRoute(app, route, context, authenticator, redisBudgetMs, port.tracing);
  await registerConsole(app);
  registerMcpStreamRefusal(app);

  app.addHook("onSend", async (request, reply) => {
    reply.header("x-request-id", request.id);
    drainOversizedBody(request, reply, Math.max(maxDrainFloorBytes, 16 * settings.bodyLimitBytes));
  });
  app.addHook("onResponse", async (request) => {
    earlyAnswers.answered(request.raw);
  });
  // Before the server stops accepting: an open stream would otherwise keep close() waiting forever.
  app.addHook("preClose", async () => {
    await Promise.all([eventStreams.closeAll(), mcpRequests.closeAll()]);
  });
  app.addHook("onClose", async () => {
    stopObserving?.();
  });
  // Routes whose handler verifies a signature over the raw body: in a scope of their own, registered after
  // the hooks above so that they have them too, where a form body stays the bytes that came.
  for (const route of apiRoutes.filter(({ spec }) => spec.rawForm !== undefined)) {
    app.register(async (scope) => {
      scope.addContentTypeParser(
        "application/x-www-form-urlencoded",
        { parseAs: "buffer" },
        (_request, body, done) => done(null, body),
      );
      registerRoute(scope, route, context, authenticator, redisBudgetMs, port.tracing);
    });
  }
  if (options.ownsClient) {
    app.addHook("onClose", async () => {
      await options.client.close();
    });
  }
  return app;
}

function registerRoute(
  app: FastifyInstance,
  route: IApiRoute,
  context: IRouteContext,
  authenticator: IAuthenticator,
  redisBudgetMs: number,
  tracing: ITracing | undefined,
): void {
  const { spec } = route;
  const { params, querystring, headers } = spec.schemas;
  const body = spec.bodyFor?.(context.settings) ?? spec.schemas.body;
  app.route({
    method: spec.method,
    url: spec.url,
    schema: {
      // An optional body may be absent: it then reads as `{}`, so handlers see one shape.
      ...(body
        ? { body: spec.bodyRequired === false ? z.preprocess((value) => value ?? {}, body) : body }
        : {}),
      ...(params ? { params } : {}),
      ...(querystring ? { querystring } : {}),
      ...(headers ? { headers } : {}),
    },
    onRequest: authenticate(spec.access, authenticator, (request, principal) =>
      auditLog(request.log, {
        subject: principal.subject,
        tenant: principal.tenant,
        action: "access.denied-role",
        targetId: spec.operationId,
        outcome: "forbidden",
        detail: { role: spec.access },
      }),
    ),
    // A request's Redis commands together get the command timeout (a paused Redis costs it that, not
    // that per command or per request ahead of it); one that waits for a run or for events has none.
    handler: tracedIfAsked(
      spec,
      tracing,
      spec.waits
        ? (request, reply) => route.handle(request, reply, context)
        : (request, reply) => withRedisBudget(redisBudgetMs, () => route.handle(request, reply, context)),
    ),
  });
}

/** The handler in a SERVER span when the route asks for it and tracing is on; as it is otherwise. */
function tracedIfAsked(
  spec: IRouteSpec,
  tracing: ITracing | undefined,
  handle: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
) {
  return spec.traced && tracing ? tracedHandler(tracing, spec, handle) : handle;
}

/** How often Node looks for requests past their timeout: a tenth of it, between 50 ms and 1 s. */
function checkingIntervalOf(requestTimeoutMs: number): number {
  return Math.min(1_000, Math.max(50, Math.floor(requestTimeoutMs / 10)));
}

/** What a caller may send as its own `x-request-id`: the characters of ids and UUIDs, bounded. */
const callerRequestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * A caller's `x-request-id` when it is a plausible id (so one id follows a request through a proxy
 * and this server's log), else a random UUID: unique across replicas, unlike a per-process counter.
 */
function requestIdOf(request: IncomingMessage): string {
  const sent = request.headers["x-request-id"];
  return typeof sent === "string" && callerRequestIdPattern.test(sent) ? sent : randomUUID();
}

const probePaths = new Set(["/healthz", "/readyz", "/metrics"]);

function isProbe(url: string | undefined): boolean {
  return probePaths.has((url ?? "").split("?")[0] ?? "");
}

/**
 * With no registry given, the API exports its own: pending approvals and queue depths read from Redis
 * at scrape time, process metrics, and what its routes count.
 */
function defaultMetrics(port: IGatewayClientPort): ITollgateMetrics {
  return createMetrics(new Registry(), port.metricsSources());
}

/**
 * The API reads JSON only: other content types are refused (400 TG_BAD_REQUEST) rather than handed to
 * a schema as a string. `content-type: application/json` with an empty body (common from clients that
 * set the header on every request) reads as no body, so a route whose body is optional accepts it and
 * one that needs a body answers 422 naming it. The rest goes to fastify's JSON parser, with its
 * prototype-poisoning protection: a `__proto__` key (or `constructor.prototype`) is refused 400, the
 * answer naming the key and where it is (fastify's own says only that the body is not valid JSON).
 */
function readJsonBodiesOnly(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") {
      done(null, undefined);
      return;
    }
    parseJson(request, text, (error, parsed) => {
      done(error ? (forbiddenKeyRefusal(text) ?? error) : null, parsed);
    });
  });
}

/** The refusal of a body that is valid JSON but holds a forbidden key; undefined for malformed JSON. */
function forbiddenKeyRefusal(text: string): TollgateError | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const forbidden = forbiddenJsonKey(value);
  if (forbidden === undefined) return undefined;
  return new TollgateError(
    "TG_BAD_REQUEST",
    `The body holds a "${forbidden.key}" key (at ${forbidden.path}), which this API refuses: an object ` +
      "copied with it could change its prototype. Rename the key.",
    { ...forbidden },
  );
}
