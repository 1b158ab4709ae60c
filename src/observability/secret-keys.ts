/**
 * Which log fields hold secrets. Redacted ALWAYS, whatever the configuration: a token in a log line
 * outlives its rotation in every log store it reaches.
 */

/** pino redact paths (checked by pino when the logger is made); `*.x` is one level deep only. */
export const SECRET_REDACT_PATHS = [
  "authorization",
  "*.authorization",
  "headers.authorization",
  "req.headers.authorization",
  "request.headers.authorization",
  "token",
  "*.token",
  "apiKey",
  "*.apiKey",
  "api_key",
  "*.api_key",
  "password",
  "*.password",
  "TOLLGATE_API_TOKENS",
  "*.TOLLGATE_API_TOKENS",
  "OPENAI_API_KEY",
  "*.OPENAI_API_KEY",
] as const;

/**
 * Field names redacted at any depth (compared lower-cased, without `_` and `-`), because pino's
 * paths cannot say "anywhere": `{ config: { model: { apiKey } } }` would pass them.
 */
export const SECRET_FIELD_NAMES: ReadonlySet<string> = new Set([
  "authorization",
  "proxyauthorization",
  "cookie",
  "token",
  "accesstoken",
  "refreshtoken",
  "apikey",
  "password",
  "secret",
  "clientsecret",
  "tollgateapitokens",
  "openaiapikey",
  "linksecret",
  "tollgatelinksecret",
]);

export const REDACTED = "[Redacted]";

export function isSecretFieldName(name: string): boolean {
  return SECRET_FIELD_NAMES.has(name.toLowerCase().replace(/[-_]/g, ""));
}
