import { z } from "zod";
import { approvalReportSchema, toolCallOutcomes } from "../contracts/index.js";

/**
 * What the child jobs return, validated when the run reads them back (never cast): a value written by
 * another version, or damaged, becomes that call's infrastructure failure instead of a misread result.
 */
const toolExecutionSchema = z.object({
  isError: z.boolean(),
  text: z.string(),
  output: z.unknown().optional(),
  /** The output is in the run's `outputs` key, not here (it was large). */
  outputStoredApart: z.literal(true).optional(),
  outcome: z.enum(toolCallOutcomes),
  status: z.number().int().optional(),
  errorCode: z.union([z.string(), z.number()]).optional(),
  truncatedChars: z.number().int().optional(),
  durationMs: z.number().min(0),
  endsRun: z.boolean(),
  input: z.unknown(),
});

export const toolJobResultSchema = z.object({
  schemaVersion: z.literal(1),
  callId: z.string(),
  execution: toolExecutionSchema,
  scheduledAt: z.number(),
  startedAt: z.number(),
  finishedAt: z.number(),
});

export const approvalJobResultSchema = z.object({
  schemaVersion: z.literal(1),
  callId: z.string(),
  /** The decision as the record keeps it, with the approval's id. */
  approval: approvalReportSchema,
});

export type TToolJobResult = z.infer<typeof toolJobResultSchema>;
export type TApprovalJobResult = z.infer<typeof approvalJobResultSchema>;
