import type { Ajv2020, ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import type { IJsonSchemaToolInput } from "../contracts/index.js";
import type { IFieldIssue } from "../errors/index.js";
import { loadAjv } from "./load-ajv.js";
import { LinearPatternEngine, PatternWorkExceededError } from "./pattern-engine.js";
import { type IRefusedPattern, refusedPatternOf } from "./schema-pattern-path.js";

/** The most schema errors an invalid input reports (the model reads them all in one line). */
export const maxInputIssues = 10;

/**
 * A tool input described by a JSON Schema, for tools served by other services (MCP, HTTP): the schema is
 * copied and frozen, so the definition cannot change under the registry. Its checks (an object root, a
 * schema ajv compiles) run when a registry is built, where the tool's name can be given with the error.
 */
export function jsonSchemaInput<TInput = unknown>(
  schema: Readonly<Record<string, unknown>>,
): IJsonSchemaToolInput<TInput> {
  return Object.freeze({ kind: "json-schema" as const, jsonSchema: deepFrozenCopy(schema) });
}

let validator: { ajv: Ajv2020; patterns: LinearPatternEngine } | undefined;

/**
 * One validator for the tool inputs of the process, 2020-12 dialect, made with the first schema compiled.
 * Tolerant of the schema (servers we do not write emit vendor keywords and formats we do not know: they
 * are ignored, not fatal), exact about the input: every error, formats checked, defaults filled in as
 * zod's `.default()` does. Nothing is fetched: a `$ref` outside the schema does not compile. Patterns run
 * on RE2 (LinearPatternEngine): an MCP server writes the schema, the model the input.
 */
function toolInputValidator(): { ajv: Ajv2020; patterns: LinearPatternEngine } {
  if (validator) return validator;
  const modules = loadAjv();
  const patterns = new LinearPatternEngine(modules);
  const ajv = new modules.Ajv2020({
    allErrors: true,
    strict: false,
    useDefaults: true,
    addUsedSchema: false,
    logger: false,
    code: { regExp: patterns.regExp },
  });
  modules.addFormats(ajv);
  validator = { ajv, patterns };
  return validator;
}

/** A value checked against a tool's schema: valid, or the issues the model reads. */
export type TJsonSchemaValidation = { ok: true } | { ok: false; issues: IFieldIssue[] };

export type TCompiledToolInput =
  | { ok: true; check(value: unknown): TJsonSchemaValidation }
  | { ok: false; message: string; refusedPattern?: IRefusedPattern };

/** Compiled once per schema object; a schema that goes (a refreshed MCP tool list) takes its validator with it. */
const compiledByInput = new WeakMap<IJsonSchemaToolInput, TCompiledToolInput>();

/** The schema compiled, or why it does not compile. Never throws. */
export function compileToolInput(input: IJsonSchemaToolInput): TCompiledToolInput {
  const known = compiledByInput.get(input);
  if (known !== undefined) return known;
  const compiled = compileOnce(input.jsonSchema);
  compiledByInput.set(input, compiled);
  return compiled;
}

function compileOnce(jsonSchema: Readonly<Record<string, unknown>>): TCompiledToolInput {
  // The dialect is ours: a draft-07 `$schema` (what many servers send) would make ajv look for a meta-schema.
  const { $schema: _dialect, ...schema } = jsonSchema;
  if (schema.type !== undefined && schema.type !== "object") {
    return { ok: false, message: `the root must be "type": "object", not ${JSON.stringify(schema.type)}` };
  }
  const { ajv, patterns } = toolInputValidator();
  try {
    const validate = patterns.compiling(() => ajv.compile(schema));
    return { ok: true, check: (value) => checkWith(validate, patterns, value) };
  } catch (error) {
    const refusedPattern = refusedPatternOf(error, schema);
    if (refusedPattern !== undefined) return { ok: false, message: refusedPattern.message, refusedPattern };
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  } finally {
    // Ajv keeps every schema object it compiled; ours are kept by the WeakMap above.
    ajv.removeSchema(schema);
  }
}

function checkWith(
  validate: ValidateFunction,
  patterns: LinearPatternEngine,
  value: unknown,
): TJsonSchemaValidation {
  try {
    if (patterns.validating(() => validate(value))) return { ok: true };
  } catch (error) {
    if (!(error instanceof PatternWorkExceededError)) throw error;
    return { ok: false, issues: [{ path: "", message: error.message }] };
  }
  return { ok: false, issues: toInputIssues(validate.errors) };
}

/** The outcome of checking an input against a JSON Schema: as zod's parse, issues with dotted paths. */
export type TJsonSchemaInputResult =
  | { ok: true; input: unknown }
  | { ok: false; issues: IFieldIssue[]; error?: unknown };

/**
 * Checks `rawInput` against the tool's JSON Schema. The input is copied first: defaults are filled in on
 * the copy, never on what the model or a human sent. A schema that does not compile is reported as `error`
 * (the tool's fault, not the input's).
 */
export function validateJsonSchemaInput(
  input: IJsonSchemaToolInput,
  rawInput: unknown,
): TJsonSchemaInputResult {
  const compiled = compileToolInput(input);
  if (!compiled.ok) return { ok: false, issues: [], error: new Error(compiled.message) };
  const copy = rawInput === undefined ? undefined : structuredClone(rawInput);
  const validation = compiled.check(copy);
  return validation.ok ? { ok: true, input: copy } : validation;
}

/**
 * Ajv's errors as the field issues zod's would be: a missing or unexpected property is named in the path
 * (as zod names it), with a message a model can act on.
 */
export function toInputIssues(errors: readonly ErrorObject[] | null | undefined): IFieldIssue[] {
  const issues = (errors ?? []).map(toInputIssue);
  const unique = issues.filter(
    (issue, index) =>
      issues.findIndex((other) => other.path === issue.path && other.message === issue.message) === index,
  );
  return unique.slice(0, maxInputIssues);
}

function toInputIssue(error: ErrorObject): IFieldIssue {
  const segments = error.instancePath
    .split("/")
    .slice(1)
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"));
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "required") {
    return { path: [...segments, String(params.missingProperty)].join("."), message: "is required" };
  }
  if (error.keyword === "additionalProperties") {
    return { path: [...segments, String(params.additionalProperty)].join("."), message: "is not allowed" };
  }
  const message = error.message ?? `fails "${error.keyword}"`;
  const allowed = error.keyword === "enum" ? `: ${JSON.stringify(params.allowedValues)}` : "";
  return { path: segments.join("."), message: `${message}${allowed}` };
}

function deepFrozenCopy<TValue>(value: TValue): TValue {
  const copy = structuredClone(value);
  const pending: unknown[] = [copy];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (typeof node === "object" && node !== null && !Object.isFrozen(node)) {
      Object.freeze(node);
      pending.push(...Object.values(node));
    }
  }
  return copy;
}
