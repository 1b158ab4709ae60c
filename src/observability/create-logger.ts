import pino, { type DestinationStream, type Logger, type LoggerOptions } from "pino";
import { tryLoadPrettyStream } from "./pretty-stream.js";
import { redactSecretFields } from "./redact-secret-fields.js";
import { REDACTED, SECRET_REDACT_PATHS } from "./secret-keys.js";
import { createSecretScrubber, secretValuesFromEnvironment } from "./secret-scrubber.js";
import { traceLogFields } from "./tracing/trace-log-fields.js";

export type { Logger } from "pino";

/*
 * Logging conventions (every module that logs follows them):
 * - One logger per process, made here; a child per job with `jobLogger` (runId, callId, ...).
 * - Errors go under `err` (`logger.error({ err }, "...")`): pino's serializer keeps `code`, `status`
 *   and the other own fields of the error, and the cause chain.
 * - Model and tool content (prompts, replies, tool inputs and outputs) is logged ONLY at debug level
 *   and ONLY under the key `content` (`logContent`), never spread into the top level of a line:
 *   it is untrusted, may be large, and may hold personal data.
 * - Secrets are redacted whatever the configuration: see secret-keys.ts and secret-scrubber.ts.
 */

export interface ICreateLoggerOptions {
  /** pino level: fatal, error, warn, info, debug, trace or silent. @defaultValue "info" */
  level?: string;
  /**
   * Human-readable lines through pino-pretty when it can be loaded, JSON lines otherwise.
   * @defaultValue process.stdout.isTTY && NODE_ENV !== "production"
   */
  pretty?: boolean;
  /** Extra pino redact paths, e.g. the paths of tool inputs that hold personal data. */
  redactPaths?: readonly string[];
  /**
   * Secret values (API tokens, model API keys) to scrub wherever they appear in a line; values
   * shorter than 8 characters are ignored. OPENAI_API_KEY and TOLLGATE_API_TOKENS are always added.
   */
  secretValues?: readonly string[];
  /** Where lines go (tests capture them here). @defaultValue standard output */
  destination?: DestinationStream;
  /** The `name` field of every line, e.g. "tollgate-worker". */
  name?: string;
}

function wantsPretty(option: boolean | undefined): boolean {
  return option ?? (process.stdout.isTTY === true && process.env.NODE_ENV !== "production");
}

/** The process's root logger: JSON lines, secrets redacted, errors with their codes. */
export function createLogger(options: ICreateLoggerOptions = {}): Logger {
  const scrubSecrets = createSecretScrubber([
    ...secretValuesFromEnvironment(process.env),
    ...(options.secretValues ?? []),
  ]);
  const loggerOptions: LoggerOptions = {
    level: options.level ?? "info",
    ...(options.name === undefined ? {} : { name: options.name }),
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: [...SECRET_REDACT_PATHS, ...(options.redactPaths ?? [])], censor: REDACTED },
    serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
    formatters: { log: redactSecretFields },
    // A line logged inside a span carries its trace_id and span_id (nothing while tracing is off).
    mixin: traceLogFields,
    ...(scrubSecrets ? { hooks: { streamWrite: scrubSecrets } } : {}),
  };
  const prettyStream = wantsPretty(options.pretty) ? tryLoadPrettyStream(options.destination) : undefined;
  const destination = prettyStream ?? options.destination;
  return destination ? pino(loggerOptions, destination) : pino(loggerOptions);
}
