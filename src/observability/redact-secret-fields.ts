import { isSecretFieldName, REDACTED } from "./secret-keys.js";

/** Deeper than this, objects are logged as they are (pino's paths still apply). */
const MAX_DEPTH = 10;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function redactValue(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (depth > MAX_DEPTH || value === null || typeof value !== "object" || seen.has(value)) {
    return value;
  }
  if (Array.isArray(value)) {
    seen.add(value);
    return value.map((item) => redactValue(item, depth + 1, seen));
  }
  // Errors, Dates, Buffers and class instances keep their identity: their serializers need it.
  if (!isPlainObject(value)) return value;
  seen.add(value);
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    copy[key] = isSecretFieldName(key) ? REDACTED : redactValue(field, depth + 1, seen);
  }
  return copy;
}

/**
 * A copy of a log line's fields with every secret-named field replaced, at any depth of plain
 * objects and arrays. The caller's objects are never modified.
 */
export function redactSecretFields(fields: Record<string, unknown>): Record<string, unknown> {
  return redactValue(fields, 0, new WeakSet()) as Record<string, unknown>;
}
