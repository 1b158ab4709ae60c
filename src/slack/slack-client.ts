import { LogLevel, type Logger as SlackLogger, WebAPIPlatformError, WebClient } from "@slack/web-api";
import { TollgateError } from "../errors/index.js";
import type { Logger } from "../observability/index.js";

export interface ISlackClientSettings {
  /** Slack's Web API base (`https://slack.com/api/`, or a stand-in's). */
  apiUrl: string;
  botToken: string;
  /** How long one call may take. */
  timeoutMs: number;
}

/**
 * Slack's own Web API client, with its retries off: a worker's delivery is retried by its job (with
 * backoff, in order per approval), and an interactivity request must be answered within 3 seconds, so
 * neither waits inside the client. A rate limit is an error like any other here.
 */
export function createSlackClient(settings: ISlackClientSettings, logger: Logger): WebClient {
  return new WebClient(settings.botToken, {
    slackApiUrl: settings.apiUrl.endsWith("/") ? settings.apiUrl : `${settings.apiUrl}/`,
    timeout: settings.timeoutMs,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    // A method name is never an absolute URL here: the base is the only place calls go.
    allowAbsoluteUrls: false,
    logger: slackLoggerOf(logger),
  });
}

/**
 * Runs one Web API call; a failure becomes TG_SLACK_API_ERROR with the method and Slack's error code
 * (`channel_not_found`, `invalid_auth`, `ratelimited`, ...), never with the token.
 */
export async function callSlack<TResult>(method: string, call: () => Promise<TResult>): Promise<TResult> {
  try {
    return await call();
  } catch (error) {
    throw slackApiError(method, error);
  }
}

/** Slack's error code of a failed call (`message_not_found`), when Slack answered one. */
export function slackErrorCodeOf(error: unknown): string | undefined {
  if (!TollgateError.isInstance(error) || error.code !== "TG_SLACK_API_ERROR") return undefined;
  const code = (error.details as { error?: unknown } | undefined)?.error;
  return typeof code === "string" ? code : undefined;
}

function slackApiError(method: string, error: unknown): TollgateError {
  if (error instanceof WebAPIPlatformError) {
    return new TollgateError("TG_SLACK_API_ERROR", `Slack refused ${method}: ${error.data.error}.`, {
      method,
      error: error.data.error,
    });
  }
  const reason = error instanceof Error ? error.message : String(error);
  const rateLimited = (error as { code?: unknown }).code === "slack_webapi_rate_limited_error";
  return new TollgateError(
    "TG_SLACK_API_ERROR",
    `${method} failed: ${rateLimited ? "rate limited by Slack" : reason}.`,
    { method, error: rateLimited ? "ratelimited" : "request_failed" },
    { cause: error },
  );
}

/** Slack's client logs through the process's logger, at debug for what it says of each request. */
function slackLoggerOf(logger: Logger): SlackLogger {
  const child = logger.child({ component: "slack-web-api" });
  const line =
    (level: "debug" | "info" | "warn" | "error") =>
    (...parts: unknown[]) => {
      child[level === "info" ? "debug" : level](parts.map((part) => String(part)).join(" "));
    };
  return {
    debug: line("debug"),
    info: line("info"),
    warn: line("warn"),
    error: line("error"),
    setLevel: () => undefined,
    getLevel: () => LogLevel.DEBUG,
    setName: () => undefined,
  };
}
