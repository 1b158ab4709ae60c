import { safeParseAsync, type ZodType } from "zod";
import { type IFieldIssue, toFieldIssues } from "../errors/index.js";

/** The outcome of parsing a tool's input with its schema. */
export type TSchemaParseResult =
  | { ok: true; input: unknown }
  /** `error` is set when the schema itself threw (a bug of the tool, not a wrong input). */
  | { ok: false; issues: IFieldIssue[]; error?: unknown };

/**
 * Parses `rawInput` with a tool's zod schema. Async so schemas with async refinements work; never throws:
 * a schema that throws is reported as `error` with no field issues.
 */
export async function parseWithSchema(schema: ZodType, rawInput: unknown): Promise<TSchemaParseResult> {
  try {
    const parsed = await safeParseAsync(schema, rawInput);
    return parsed.success
      ? { ok: true, input: parsed.data }
      : { ok: false, issues: toFieldIssues(parsed.error) };
  } catch (error) {
    return { ok: false, issues: [], error };
  }
}
