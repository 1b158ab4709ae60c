import { safeParseAsync } from "zod";
import { isJsonSchemaToolInput, type TToolInputSchema } from "../contracts/index.js";
import { type IFieldIssue, toFieldIssues } from "../errors/index.js";
import { validateJsonSchemaInput } from "./json-schema-input.js";

/** The outcome of parsing a tool's input with its schema. */
export type TSchemaParseResult =
  | { ok: true; input: unknown }
  /** `error` is set when the schema itself threw (a bug of the tool, not a wrong input). */
  | { ok: false; issues: IFieldIssue[]; error?: unknown };

/**
 * Parses `rawInput` with a tool's schema: zod's, or a JSON Schema checked by ajv. Async so zod schemas
 * with async refinements work; never throws: a schema that throws (or a JSON Schema that does not
 * compile) is reported as `error` with no field issues.
 */
export async function parseWithSchema(
  schema: TToolInputSchema,
  rawInput: unknown,
): Promise<TSchemaParseResult> {
  try {
    if (isJsonSchemaToolInput(schema)) return validateJsonSchemaInput(schema, rawInput);
    const parsed = await safeParseAsync(schema, rawInput);
    return parsed.success
      ? { ok: true, input: parsed.data }
      : { ok: false, issues: toFieldIssues(parsed.error) };
  } catch (error) {
    return { ok: false, issues: [], error };
  }
}
