import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { z } from "zod";
import { assertKnownKeys, describeFieldIssues, TollgateError, toFieldIssues } from "../errors/index.js";
import type { ITollgateMetrics } from "../observability/index.js";
import type { GatewayClient } from "../producer/index.js";
import type { IApiToken } from "./auth/api-tokens.js";
import type { IJwtVerifier } from "./auth/jwt-verifier.js";
import type { StaticTokens } from "./auth/token-verifier.js";

/** The limits and timings that change behaviour, in one place. */
export const API_DEFAULTS = Object.freeze({
  /**
   * How long one call to Slack's Web API from an interactivity request may take: Slack waits 3 s for the
   * answer (and a modal's trigger id lives 3 s), so a call that takes longer is of no use.
   */
  slackCallTimeoutMs: 2_500,
  bodyLimitBytes: 1024 * 1024,
  /** Longest a `POST /v1/ask` waits; a longer `timeoutMs` in the body is refused (422). */
  askMaxWaitMs: 120_000,
  /** Proxies close connections that stay silent for a minute or so; a comment every 15 s keeps SSE open. */
  sseHeartbeatMs: 15_000,
  /** `/readyz` answers 503 when Redis does not take its write within this. */
  readyTimeoutMs: 1_000,
  /** Event streams open at once on one server; each holds a socket and a follower until its run ends. */
  sseMaxStreams: 1_000,
  /** Event streams one token subject may hold open at once. */
  sseMaxStreamsPerToken: 20,
  /**
   * An event stream whose client has not taken what was written for this long is closed (its connection
   * destroyed): the server stops reading events for a client that does not read as soon as its socket's
   * buffer is full, and this frees the socket, its place under the caps and what it holds. A client on a
   * slow link still takes a large event within a minute; one that reconnects resumes with Last-Event-ID.
   */
  sseStallTimeoutMs: 60_000,
  /**
   * A request's headers and body must have arrived within this, or it is answered 408 and its
   * connection closed: a client that never finishes its body would otherwise hold a connection (and a
   * place among the sockets) for as long as it likes. 30 s carries the largest body (1 MiB) over a
   * link of about 300 kbit/s; a run's own time is not counted, only the request's arrival.
   */
  requestTimeoutMs: 30_000,
});

export interface IApiOptions {
  /** The producer the routes call. Its connection should be the fail-fast "client" kind (the default). */
  client: GatewayClient;
  /** The bearer tokens; see `loadApiTokens`. Required unless `insecure`, `tokenSet` or `jwt`. */
  tokens?: IApiToken[];
  /** Static tokens that can be replaced while serving (a reloaded tokens file); wins over `tokens`. */
  tokenSet?: StaticTokens;
  /** JWT bearer tokens, tried after the static ones; see `createJwtVerifier`. */
  jwt?: IJwtVerifier;
  /**
   * Start without tokens: every request acts as subject "anonymous" with the admin role. For local
   * experiments only; a warning is logged. Ignored when tokens are given.
   * @defaultValue false
   */
  insecure?: boolean;
  /** Request bodies over this get 413 TG_PAYLOAD_TOO_LARGE. @defaultValue 1 MiB */
  bodyLimitBytes?: number;
  /** Fastify's logger instance; requests and errors are logged to it. @defaultValue createLogger() */
  logger?: Logger;
  /** Served at `/metrics`. @defaultValue `metrics`' registry, else a new registry with createMetrics */
  registry?: Registry;
  /**
   * Where the API counts what it observes (approval link redemptions). @defaultValue createMetrics on a
   * new registry, unless only `registry` is given (then nothing is counted)
   */
  metrics?: ITollgateMetrics;
  /** The longest `POST /v1/ask` may wait. @defaultValue 120000 */
  askMaxWaitMs?: number;
  /** Interval of SSE heartbeat comments. @defaultValue 15000 */
  sseHeartbeatMs?: number;
  /** How long `/readyz` waits for its write to Redis. @defaultValue 1000 */
  readyTimeoutMs?: number;
  /** Event streams open at once; more answer 429 TG_RATE_LIMITED. @defaultValue 1000 */
  sseMaxStreams?: number;
  /** Event streams one token subject may hold open; more answer 429 TG_RATE_LIMITED. @defaultValue 20 */
  sseMaxStreamsPerToken?: number;
  /**
   * A stream whose client has not read what was written (the socket's buffer stays full) for this long
   * is closed; so is a finished stream whose last bytes it has not taken. @defaultValue 60000
   */
  sseStallTimeoutMs?: number;
  /**
   * How long a request's headers and body may take to arrive; past it the request is answered 408
   * TG_REQUEST_TIMEOUT and its connection closed, whether or not it is authenticated. @defaultValue 30000
   */
  requestTimeoutMs?: number;
  /** Whether close() also closes `client`. @defaultValue false: whoever made the client closes it */
  ownsClient?: boolean;
  /**
   * Where the Slack targets' secrets are read from (the bot token and signing secret variables each target
   * names). @defaultValue process.env
   */
  env?: NodeJS.ProcessEnv;
}

export interface IApiSettings {
  readonly bodyLimitBytes: number;
  readonly askMaxWaitMs: number;
  readonly sseHeartbeatMs: number;
  readonly readyTimeoutMs: number;
  readonly sseMaxStreams: number;
  readonly sseMaxStreamsPerToken: number;
  readonly sseStallTimeoutMs: number;
  readonly requestTimeoutMs: number;
}

const positiveMilliseconds = z
  .number()
  .int()
  .min(1)
  .max(24 * 60 * 60 * 1000);

const apiSettingsSchema = z.object({
  bodyLimitBytes: z
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(API_DEFAULTS.bodyLimitBytes),
  askMaxWaitMs: positiveMilliseconds.default(API_DEFAULTS.askMaxWaitMs),
  sseHeartbeatMs: positiveMilliseconds.default(API_DEFAULTS.sseHeartbeatMs),
  readyTimeoutMs: positiveMilliseconds.default(API_DEFAULTS.readyTimeoutMs),
  sseMaxStreams: z.number().int().min(1).max(1_000_000).default(API_DEFAULTS.sseMaxStreams),
  sseMaxStreamsPerToken: z.number().int().min(1).max(1_000_000).default(API_DEFAULTS.sseMaxStreamsPerToken),
  sseStallTimeoutMs: z
    .number()
    .int()
    .min(100)
    .max(60 * 60 * 1000)
    .default(API_DEFAULTS.sseStallTimeoutMs),
  // Below 100 ms a request on a loaded machine could not arrive in time; Node checks it about every 1 s.
  requestTimeoutMs: z
    .number()
    .int()
    .min(100)
    .max(60 * 60 * 1000)
    .default(API_DEFAULTS.requestTimeoutMs),
});

/**
 * Every key of IApiOptions: the numeric settings of the schema above, the others listed (`satisfies`
 * keeps the list and the interface the same set), and startApi's `port` and `host`. Anything else is a
 * typo.
 */
const apiOptionKeys = [
  ...Object.keys(apiSettingsSchema.shape),
  ...Object.keys({
    client: true,
    tokens: true,
    tokenSet: true,
    jwt: true,
    insecure: true,
    logger: true,
    registry: true,
    metrics: true,
    ownsClient: true,
    env: true,
  } satisfies Record<Exclude<keyof IApiOptions, keyof typeof apiSettingsSchema.shape>, true>),
  "port",
  "host",
];

/**
 * The numeric options with their defaults, checked once; a bad one, or an unknown key (named with the
 * nearest known one), fails start-up naming the option.
 */
export function resolveApiSettings(options: IApiOptions): IApiSettings {
  assertKnownKeys(options, apiOptionKeys, "TG_INVALID_CONFIG", "Invalid API options");
  const parsed = apiSettingsSchema.safeParse({
    bodyLimitBytes: options.bodyLimitBytes,
    askMaxWaitMs: options.askMaxWaitMs,
    sseHeartbeatMs: options.sseHeartbeatMs,
    readyTimeoutMs: options.readyTimeoutMs,
    sseMaxStreams: options.sseMaxStreams,
    sseMaxStreamsPerToken: options.sseMaxStreamsPerToken,
    sseStallTimeoutMs: options.sseStallTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs,
  });
  if (!parsed.success) {
    const issues = toFieldIssues(parsed.error);
    throw new TollgateError("TG_INVALID_CONFIG", `Invalid API options: ${describeFieldIssues(issues)}`, {
      issues,
    });
  }
  return Object.freeze(parsed.data);
}
