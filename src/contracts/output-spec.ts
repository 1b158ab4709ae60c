import { z } from "zod";

/**
 * A structured answer's schema as a run keeps it: JSON Schema (2020-12 dialect) and the name the model is
 * told. A zod schema given to the library is converted to this before it is queued (src/output).
 */
export const outputSpecSchema = z.object({
  schema: z.record(z.string(), z.unknown()),
  name: z.string(),
});

export type TOutputSpec = z.infer<typeof outputSpecSchema>;

/** One reason a structured answer failed its schema: where (a JSON Pointer, "" for the whole) and what. */
export const outputIssueSchema = z.object({ path: z.string(), message: z.string() });

export type TOutputIssue = z.infer<typeof outputIssueSchema>;
