import type { Ajv2020, ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import type { TOutputIssue } from "../contracts/index.js";
import { loadAjv } from "../tools/load-ajv.js";
import { compiledOutputSchemasKept, maxOutputIssues } from "./output-limits.js";

export type TCompiledOutputSchema = { ok: true; validate: ValidateFunction } | { ok: false; message: string };

let validator: Ajv2020 | undefined;

/**
 * One validator for every output schema of the process, made with the first schema compiled. Strict about
 * the schema (an unknown keyword or format is an error naming it, not a rule silently ignored), quiet (no
 * console), and no schema is kept by its `$id` (two requests may use the same one), nor fetched: a `$ref`
 * outside the schema does not compile.
 */
function outputValidator(): Ajv2020 {
  if (validator) return validator;
  const { Ajv2020, addFormats } = loadAjv();
  validator = new Ajv2020({
    allErrors: true,
    strictSchema: true,
    strictNumbers: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    addUsedSchema: false,
    logger: false,
  });
  addFormats(validator);
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
  const ajv = outputValidator();
  try {
    const validate = ajv.compile(schema);
    return { ok: true, validate };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  } finally {
    // Ajv caches every schema object it compiled; ours is the cache above, bounded.
    ajv.removeSchema(schema);
  }
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
