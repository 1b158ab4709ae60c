import {
  type IJwtVerifier,
  type IRunningApi,
  type ITokenReloader,
  loadApiTokens,
  StaticTokens,
  startApi,
  watchTokensFile,
} from "../../api/index.js";
import type { TEnv } from "../../config/env.js";
import { parseRuntimeOptions } from "../../config/runtime-options.js";
import { runtimeOptionsFromEnv } from "../../config/runtime-options-from-env.js";
import {
  createLogger,
  type Logger,
  startTracingFromEnv,
  throttledConnectionWarning,
} from "../../observability/index.js";
import { clientPortOf, GatewayClient } from "../../producer/index.js";
import { CliError } from "../cli-errors.js";
import type { ICliIo } from "../cli-io.js";
import { loadGateway } from "../load-gateway.js";
import { waitForStopSignal } from "../stop-signal.js";
import { jwtVerifierFromEnv } from "./jwt-from-env.js";

export interface IServeApiOptions {
  gatewayPath: string;
  port: number;
  host: string;
  insecure: boolean;
  /** Log lines for people (true) or JSON lines (false), as --output asked; unset: createLogger's default. */
  prettyLogs?: boolean;
}

/** `tollgate api`: serves until SIGTERM/SIGINT, then stops accepting, drains and resolves with 0. */
export async function serveApi(io: ICliIo, env: TEnv, options: IServeApiOptions): Promise<number> {
  const tokens = await loadApiTokens(env);
  const logger = createLogger({
    level: env.LOG_LEVEL,
    name: "tollgate-api",
    ...(options.prettyLogs !== undefined ? { pretty: options.prettyLogs } : {}),
  });
  const jwt = await jwtVerifierFromEnv(env, logger);
  if (tokens.length === 0 && !jwt && !options.insecure) {
    // Said before the gateway loads (seconds): the fix is in the environment, not the gateway.
    throw new CliError(
      "no API tokens: set TOLLGATE_API_TOKENS or TOLLGATE_API_TOKENS_FILE or TOLLGATE_JWT_ISSUER (docs/CONFIGURATION.md), " +
        "or pass --insecure on a machine only you can reach",
    );
  }
  const gateway = await loadGateway(options.gatewayPath, io.cwd);
  const tokenSet = new StaticTokens(tokens);
  // A tokens file counts as configured even while it lists none: it is re-read, and tokens may come.
  // An empty inline list does not, so `--insecure` with no tokens anywhere serves (the reloader, which
  // exists in every case for SIGHUP, says nothing about whether tokens are configured).
  const tokensConfigured = tokens.length > 0 || env.TOLLGATE_API_TOKENS_FILE !== undefined;
  const reloader = reloaderOf(env, tokenSet, jwt, logger);
  // Traces only when the standard OTEL_* variables ask for them; nothing of the SDK is loaded otherwise.
  const tracing = await startTracingFromEnv("tollgate-api");
  const client = new GatewayClient({
    gateway,
    runtime: runtimeOptionsFromEnv(env),
    onConnectionError: throttledConnectionWarning(logger),
    ...(tracing ? { tracing: tracing.options } : {}),
  });
  try {
    await checkRedisAtStart(client, logger);
    const api = await startApi({
      client,
      tokens,
      ...(tokensConfigured ? { tokenSet } : {}),
      ...(jwt ? { jwt } : {}),
      insecure: options.insecure,
      logger,
      // A Slack target's bot token and signing secret are read from the CLI's environment.
      env: io.env,
      port: options.port,
      host: options.host,
      ...(env.TOLLGATE_BODY_LIMIT_BYTES !== undefined
        ? { bodyLimitBytes: env.TOLLGATE_BODY_LIMIT_BYTES }
        : {}),
      ...(env.TOLLGATE_REQUEST_TIMEOUT_MS !== undefined
        ? { requestTimeoutMs: env.TOLLGATE_REQUEST_TIMEOUT_MS }
        : {}),
      ...(env.TOLLGATE_SSE_MAX_STREAMS !== undefined ? { sseMaxStreams: env.TOLLGATE_SSE_MAX_STREAMS } : {}),
      ...(env.TOLLGATE_SSE_MAX_STREAMS_PER_TOKEN !== undefined
        ? { sseMaxStreamsPerToken: env.TOLLGATE_SSE_MAX_STREAMS_PER_TOKEN }
        : {}),
      ...(env.TOLLGATE_SSE_STALL_TIMEOUT_MS !== undefined
        ? { sseStallTimeoutMs: env.TOLLGATE_SSE_STALL_TIMEOUT_MS }
        : {}),
    });
    logger.info({ url: api.url, gateway: gateway.settings.name }, "tollgate api listening");
    const signal = await waitForStopSignal();
    logger.info({ signal }, "stopping: no new connections; finishing requests in flight");
    await closeWithin(api, parseRuntimeOptions(runtimeOptionsFromEnv(env)).shutdownTimeoutMs, logger);
    logger.info("tollgate api stopped");
    return 0;
  } finally {
    reloader?.close();
    await client.close();
    // The spans still buffered go out before the process ends.
    await tracing?.shutdown();
  }
}

/**
 * Tokens from a file are re-read on SIGHUP and when the file changes (with a JWKS file beside them);
 * a JWKS file alone is re-read on SIGHUP. Inline tokens (an environment variable) cannot change.
 */
function reloaderOf(
  env: TEnv,
  tokenSet: StaticTokens,
  jwt: IJwtVerifier | undefined,
  logger: Logger,
): ITokenReloader | undefined {
  const reloadJwt = async () => {
    await jwt?.reload();
  };
  if (env.TOLLGATE_API_TOKENS_FILE !== undefined) {
    return watchTokensFile(env.TOLLGATE_API_TOKENS_FILE, tokenSet, logger, reloadJwt);
  }
  if (env.TOLLGATE_JWT_JWKS_FILE === undefined) {
    // Handled all the same: a process manager that sends SIGHUP to reload must not end the API.
    const onSignal = () =>
      logger.warn("SIGHUP: nothing to reload (tokens from TOLLGATE_API_TOKENS change with a restart)");
    process.on("SIGHUP", onSignal);
    return { reload: async () => {}, close: () => process.off("SIGHUP", onSignal) };
  }
  const onSignal = () => {
    reloadJwt().then(
      () => logger.info("JWKS file reloaded"),
      (error: unknown) =>
        logger.error({ err: error }, "JWKS file not reloaded: the current keys stay in use"),
    );
  };
  process.on("SIGHUP", onSignal);
  return { reload: reloadJwt, close: () => process.off("SIGHUP", onSignal) };
}

/**
 * Drains in-flight requests, but not forever: a `POST /v1/ask` may wait minutes for its run. Past the
 * deadline their connections are closed; the runs themselves go on in the workers, and clients can
 * read them with `GET /v1/runs/:id`.
 */
async function closeWithin(api: IRunningApi, timeoutMs: number, logger: Logger): Promise<void> {
  const closing = api.close();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  const result = await Promise.race([closing, timedOut]);
  clearTimeout(timer);
  if (result === "timeout") {
    logger.warn(
      { timeoutMs },
      "requests still in flight at the shutdown deadline: closing their connections",
    );
    api.app.server.closeAllConnections();
    await closing;
  }
}

/**
 * The API serves (503 on Redis routes) while Redis is down, so an unreachable Redis at start is a
 * warning; a reachable one that is unsuitable (a cluster node given as a single node, eviction when
 * TOLLGATE_REQUIRE_NOEVICTION) stops the API before it listens.
 */
async function checkRedisAtStart(client: GatewayClient, logger: Logger): Promise<void> {
  const port = clientPortOf(client);
  try {
    await port.ready();
  } catch (error) {
    logger.warn({ err: error }, "Redis did not answer at start: its settings are not checked");
    return;
  }
  await port.checkRedisServer({ logger });
}
