import type { IOutputRequest, TOutputSpec } from "../contracts/index.js";
import type { IRefusedPattern } from "../tools/schema-pattern-path.js";
import { compileOutputSchema } from "./compile-output-schema.js";
import { defaultOutputName, maxOutputSchemaBytes, outputNamePattern } from "./output-limits.js";
import { toOutputJsonSchema } from "./to-output-json-schema.js";

/** The one JSON Schema dialect output schemas are compiled in. */
const jsonSchemaDialect = "https://json-schema.org/draft/2020-12/schema";

/**
 * Why an output request cannot be used: where (`schema` or `name`), what, and whether it is only too large
 * or has a pattern Tollgate will not run (which, and where in the schema).
 */
export interface IOutputSpecProblem {
  path: "schema" | "name";
  message: string;
  tooLarge?: true;
  refusedPattern?: IRefusedPattern;
}

export type TOutputSpecResult = { ok: true; spec: TOutputSpec } | { ok: false; problem: IOutputSpecProblem };

/**
 * The spec a run stores for an output request, checked as the worker will use it: converted to JSON Schema,
 * at most `maxOutputSchemaBytes`, a root object (models answer with an object), and compiled.
 */
export function outputSpecOf(request: IOutputRequest): TOutputSpecResult {
  const name = request.name ?? defaultOutputName;
  if (!outputNamePattern.test(name)) {
    return { ok: false, problem: { path: "name", message: "1 to 64 letters, digits, '_', '-'" } };
  }
  const converted = toOutputJsonSchema(request.schema);
  if (!converted.ok) return { ok: false, problem: { path: "schema", message: converted.message } };
  const schema = converted.schema;
  const bytes = new TextEncoder().encode(JSON.stringify(schema)).length;
  if (bytes > maxOutputSchemaBytes) {
    const message = `${bytes} bytes of JSON; the limit is ${maxOutputSchemaBytes}`;
    return { ok: false, problem: { path: "schema", message, tooLarge: true } };
  }
  if (schema.$schema !== undefined && schema.$schema !== jsonSchemaDialect) {
    const message = `\`$schema\` must be ${jsonSchemaDialect} (the 2020-12 dialect) or absent`;
    return { ok: false, problem: { path: "schema", message } };
  }
  if (schema.type !== "object") {
    const message = 'the root must be `"type": "object"` (models answer with a JSON object)';
    return { ok: false, problem: { path: "schema", message } };
  }
  const compiled = compileOutputSchema(schema);
  if (!compiled.ok) {
    const message = `does not compile: ${compiled.message}`;
    const refused = compiled.refusedPattern;
    return {
      ok: false,
      problem: { path: "schema", message, ...(refused ? { refusedPattern: refused } : {}) },
    };
  }
  return { ok: true, spec: { schema, name } };
}
