import type { z } from "zod";
import type { TErrorCode } from "./catalogue.js";
import { nearestKey } from "./nearest-key.js";
import { type IFieldIssue, TollgateError } from "./tollgate-error.js";
import { describeFieldIssues } from "./zod-issues.js";

/** What is said of one unknown key: `unknown key (did you mean "approvalTtlMs"?)`, or just `unknown key`. */
export function unknownKeyMessage(key: string, known: readonly string[]): string {
  return `unknown key${suggestionOf(key, known)}`;
}

function suggestionOf(key: string, known: readonly string[]): string {
  const suggestion = nearestKey(key, known);
  return suggestion === undefined ? "" : ` (did you mean "${suggestion}"?)`;
}

/** `parent.key`; `key` at the root, `parent` for the object itself (an empty key). */
export function joinKeyPath(parent: string, key: string): string {
  return parent === "" ? key : key === "" ? parent : `${parent}.${key}`;
}

/**
 * One issue per own key of `value` that is not in `known`: for option objects typed in TypeScript and
 * not parsed by zod (tools, worker and API options), checked where they are taken in.
 */
export function unknownKeyIssues(value: object, known: readonly string[], path = ""): IFieldIssue[] {
  const knownKeys = new Set(known);
  return Object.keys(value)
    .filter((key) => !knownKeys.has(key))
    .map((key) => ({ path: joinKeyPath(path, key), message: unknownKeyMessage(key, known) }));
}

/**
 * Throws `code` naming every unknown key of `value` (and the nearest known one): for option objects
 * typed in TypeScript, whose typos a JavaScript caller (or a spread) gets past the compiler.
 * `what` starts the message: "Invalid worker options".
 */
export function assertKnownKeys(
  value: object,
  known: readonly string[],
  code: TErrorCode,
  what: string,
): void {
  const issues = unknownKeyIssues(value, known);
  if (issues.length === 0) return;
  throw new TollgateError(code, `${what}: ${describeFieldIssues(issues)}.`, { issues });
}

/**
 * The error map of a configuration's parse: an unknown key of a strict object (`z.strictObject`) is
 * named with the nearest key of that object's own shape, so the schema stays the one list of what is
 * known. `rootKeys`: keys the root object takes besides its schema's (defineGateway takes `tools`, which
 * its settings schema does not hold). Other issues keep zod's message.
 */
export function unknownKeysErrorMap(rootKeys: readonly string[] = []): z.core.$ZodErrorMap {
  return (issue) => {
    if (issue.code !== "unrecognized_keys") return undefined;
    const known = [...shapeKeysOf(issue.inst), ...((issue.path ?? []).length === 0 ? rootKeys : [])];
    if (issue.keys.length === 1) return unknownKeyMessage(issue.keys[0]!, known);
    return `unknown keys ${issue.keys.map((key) => `"${key}"${suggestionOf(key, known)}`).join(", ")}`;
  };
}

/**
 * Zod issues as field issues, an unknown key named by its own path (`tools.refund.timeoutMS`, where zod
 * names the object holding it) when it is the object's only one; several are named in the message.
 */
export function toConfigIssues(error: z.ZodError): IFieldIssue[] {
  return error.issues.map((issue) => {
    const path = issue.path.map((segment) => String(segment)).join(".");
    if (issue.code === "unrecognized_keys" && issue.keys.length === 1) {
      return { path: joinKeyPath(path, issue.keys[0]!), message: issue.message };
    }
    return { path, message: issue.message };
  });
}

/** The keys of the object schema that raised an issue (zod 4 keeps a schema's definition under `_zod`). */
function shapeKeysOf(schema: unknown): string[] {
  const shape = (schema as { _zod?: { def?: { shape?: unknown } } } | undefined)?._zod?.def?.shape;
  return typeof shape === "object" && shape !== null ? Object.keys(shape) : [];
}
