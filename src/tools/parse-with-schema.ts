import { config, util, type z } from "zod";
import { isJsonSchemaToolInput, type TToolInputSchema } from "../contracts/index.js";
import { fieldIssuesOf, type IFieldIssue } from "../errors/index.js";
import { validateJsonSchemaInput } from "./json-schema-input.js";

/** The outcome of parsing a tool's input with its schema. */
export type TSchemaParseResult =
  | { ok: true; input: unknown }
  /** `error` is set when the schema itself threw (a bug of the tool, not a wrong input). */
  | { ok: false; issues: IFieldIssue[]; error?: unknown };

/**
 * Parses `rawInput` with a tool's schema: zod's, or a JSON Schema checked by ajv. Never throws: a schema
 * that throws (or a JSON Schema that does not compile) is reported as `error` with no field issues.
 *
 * Answered at once (no promise) when the parse met nothing asynchronous, and a promise only when a zod
 * schema's async refinement or transform ran: a tool job that awaits nothing before its tool's `execute`
 * starts the tool before its worker sends anything else (BullMQ's worker goes on to fetch its next job at
 * the processor's first await). The zod schema runs once, as `safeParseAsync` runs it (zod's own parse
 * with an async context, which stays synchronous until a check returns a promise): not parsed in sync
 * first and again in async, which would call an async refinement twice.
 */
export function parseWithSchema(
  schema: TToolInputSchema,
  rawInput: unknown,
): TSchemaParseResult | Promise<TSchemaParseResult> {
  try {
    if (isJsonSchemaToolInput(schema)) return validateJsonSchemaInput(schema, rawInput);
    const context = { async: true };
    const run = (schema as z.ZodType)._zod.run({ value: rawInput, issues: [] }, context);
    const settle = (payload: z.core.ParsePayload): TSchemaParseResult =>
      payload.issues.length === 0
        ? { ok: true, input: payload.value }
        : {
            ok: false,
            issues: fieldIssuesOf(
              payload.issues.map((issue) => util.finalizeIssue(issue, context, config())),
            ),
          };
    return run instanceof Promise ? run.then(settle, (error: unknown) => thrown(error)) : settle(run);
  } catch (error) {
    return thrown(error);
  }
}

function thrown(error: unknown): TSchemaParseResult {
  return { ok: false, issues: [], error };
}
