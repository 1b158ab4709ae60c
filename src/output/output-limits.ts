/**
 * Structured answers' limits and defaults, in one place so that a change is one reviewed line
 * (docs/LIMITS.md lists them).
 */

/**
 * The most bytes of an output schema (as JSON). The schema is stored with the run and written with each of
 * its checkpoints, and it is compiled by every process that reads it: it must stay small.
 */
export const maxOutputSchemaBytes = 32 * 1024;

/** The name the model is told when the request gives none. */
export const defaultOutputName = "output";

/** The names the model endpoints accept for a `json_schema` response format. */
export const outputNamePattern = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * How many answers that fail the schema are sent back to the model with their errors before the run fails
 * with TG_OUTPUT_INVALID.
 */
export const maxOutputRetries = 1;

/** The most schema errors shown to the model and kept in the error's details. */
export const maxOutputIssues = 10;

/** Compiled schemas kept per process (the least recently used goes first). */
export const compiledOutputSchemasKept = 256;
