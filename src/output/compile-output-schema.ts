import type { Ajv2020, ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import type { TOutputIssue } from "../contracts/index.js";
import { loadAjv } from "../tools/load-ajv.js";
import { LinearPatternEngine, PatternWorkExceededError } from "../tools/pattern-engine.js";
import { type IRefusedPattern, refusedPatternOf } from "../tools/schema-pattern-path.js";
import { compiledOutputSchemasKept, maxOutputIssues } from "./output-limits.js";

/** An answer checked: valid, or the issues a model (and a caller) reads. */
export type TOutputValidation = { ok: true } | { ok: false; issues: TOutputIssue[] };

/** A schema compiled, or why not; a pattern refused is named (`refusedPattern`) as well as described. */
export type TCompiledOutputSchema =
  | { ok: true; check(value: unknown): TOutputValidation }
  | { ok: false; message: string; refusedPattern?: IRefusedPattern };

let validator: { ajv: Ajv2020; patterns: LinearPatternEngine } | undefined;

/**
 * One validator for every output schema of the process, made with the first schema compiled. Strict about
 * the schema (an unknown keyword or format is an error naming it, not a rule silently ignored), quiet (no
 * console), and no schema is kept by its `$id` (two requests may use the same one), nor fetched: a `$ref`
 * outside the schema does not compile. Patterns run on RE2 (LinearPatternEngine): a caller's schema sets
 * them, and the model, which the caller prompts, writes the text they read.
 */
function outputValidator(): { ajv: Ajv2020; patterns: LinearPatternEngine } {
  if (validator) return validator;
  const modules = loadAjv();
  const patterns = new LinearPatternEngine(modules);
  const ajv = new modules.Ajv2020({
    allErrors: true,
    strictSchema: true,
    strictNumbers: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    addUsedSchema: false,
    logger: false,
    code: { regExp: patterns.regExp },
  });
  modules.addFormats(ajv);
  validator = { ajv, patterns };
  return validator;
}

/** Compiled schemas by their JSON text, least recently used first. */
const compiled = new Map<string, TCompiledOutputSchema>();

/**
 * The schema compiled, or why it does not compile. Compiling costs about a millisecond: each process keeps
 * the latest `compiledOutputSchemasKept` (a gateway's default, a service's few schemas) by their text.
 */
export function compileOutputSchema(schema: Record<string, unknown>): TCompiledOutputSchema {
  const key = JSON.stringify(schema);
  const known = compiled.get(key);
  if (known) {
    compiled.delete(key);
    compiled.set(key, known);
    return known;
  }
  const result = compileOnce(schema);
  compiled.set(key, result);
  if (compiled.size > compiledOutputSchemasKept) compiled.delete(compiled.keys().next().value as string);
  return result;
}

function compileOnce(schema: Record<string, unknown>): TCompiledOutputSchema {
  const { ajv, patterns } = outputValidator();
  try {
    const validate = patterns.compiling(() => ajv.compile(schema));
    return { ok: true, check: (value) => checkWith(validate, patterns, value) };
  } catch (error) {
    const refusedPattern = refusedPatternOf(error, schema);
    if (refusedPattern !== undefined) {
      return { ok: false, message: refusedPattern.message, refusedPattern };
    }
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  } finally {
    // Ajv caches every schema object it compiled; ours is the cache above, bounded.
    ajv.removeSchema(schema);
  }
}

function checkWith(
  validate: ValidateFunction,
  patterns: LinearPatternEngine,
  value: unknown,
): TOutputValidation {
  try {
    if (patterns.validating(() => validate(value))) return { ok: true };
  } catch (error) {
    if (!(error instanceof PatternWorkExceededError)) throw error;
    return { ok: false, issues: [{ path: "", message: error.message }] };
  }
  return { ok: false, issues: toOutputIssues(validate.errors) };
}

/** Ajv's errors as issues a model (and a caller) can read: where, and what is wrong there. */
export function toOutputIssues(errors: readonly ErrorObject[] | null | undefined): TOutputIssue[] {
  return (errors ?? []).slice(0, maxOutputIssues).map((error) => ({
    path: error.instancePath,
    message: messageOf(error),
  }));
}

function messageOf(error: ErrorObject): string {
  const message = error.message ?? `fails "${error.keyword}"`;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "additionalProperties") return `${message}: "${String(params.additionalProperty)}"`;
  if (error.keyword === "enum") return `${message}: ${JSON.stringify(params.allowedValues)}`;
  return message;
}
