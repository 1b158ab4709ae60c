import { REDACTED } from "./secret-keys.js";

/** Shorter values are not scrubbed: they would match ordinary text (and could break the JSON line). */
export const MIN_SECRET_LENGTH = 8;

/** Pieces of an environment variable shorter than this are taken for names or roles, not tokens. */
const MIN_ENVIRONMENT_SECRET_LENGTH = 16;

function escapeForRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Secret values from the environment: the whole of OPENAI_API_KEY and TOLLGATE_API_TOKENS, and each
 * long piece of the latter (whatever its format, a token is a long run of characters between
 * separators such as `,`, `:` or `=`).
 */
export function secretValuesFromEnvironment(environment: NodeJS.ProcessEnv): string[] {
  const values: string[] = [];
  for (const name of ["OPENAI_API_KEY", "TOLLGATE_API_TOKENS"]) {
    const value = environment[name]?.trim();
    if (!value) continue;
    values.push(value);
    values.push(
      ...value.split(/[\s,;:=|]+/).filter((piece) => piece.length >= MIN_ENVIRONMENT_SECRET_LENGTH),
    );
  }
  return values;
}

/**
 * Replaces known secret values wherever they appear in a serialized log line: in the message, in an
 * error's text, under any field name. Field-name redaction cannot catch a token pasted into text.
 * Returns undefined when there is nothing to scrub, so that no work is added to each line.
 */
export function createSecretScrubber(
  secretValues: readonly string[],
): ((line: string) => string) | undefined {
  const forms = new Set<string>();
  for (const secret of secretValues) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    forms.add(secret);
    // Inside a JSON string a secret with quotes or backslashes appears escaped.
    forms.add(JSON.stringify(secret).slice(1, -1));
  }
  if (forms.size === 0) return undefined;
  // Longest first, so that a secret containing another is replaced whole.
  const pattern = new RegExp(
    [...forms]
      .sort((left, right) => right.length - left.length)
      .map(escapeForRegExp)
      .join("|"),
    "g",
  );
  return (line) => line.replace(pattern, REDACTED);
}
