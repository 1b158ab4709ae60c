import { z } from "zod";
import type { TOutputSchemaInput } from "../contracts/index.js";

/** Whether a schema given to the library is zod's (zod 4 schemas carry `_zod`). */
export function isZodSchema(schema: TOutputSchemaInput): schema is z.ZodType {
  return typeof schema === "object" && schema !== null && "_zod" in schema;
}

export type TJsonSchemaConversion =
  | { ok: true; schema: Record<string, unknown> }
  | { ok: false; message: string };

/**
 * The JSON Schema (2020-12) a run stores for a structured answer: zod's own conversion of a zod schema
 * (what it cannot express, a transform or a Date, is refused rather than dropped), a JSON Schema as is.
 */
export function toOutputJsonSchema(schema: TOutputSchemaInput): TJsonSchemaConversion {
  if (!isZodSchema(schema)) return { ok: true, schema };
  try {
    return {
      ok: true,
      schema: z.toJSONSchema(schema, { target: "draft-2020-12" }) as Record<string, unknown>,
    };
  } catch (error) {
    return {
      ok: false,
      message: `the zod schema has no JSON Schema form (${error instanceof Error ? error.message : String(error)})`,
    };
  }
}
