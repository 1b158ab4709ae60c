import { z } from "zod";
import { approvalReportSchema } from "./approval-decision.js";
import { toolCallOutcomes } from "./result.js";

/**
 * How one tool call went, as its job returns it: what the model reads, the output as stored, and whether it
 * ends the run. `IToolExecution` (the registry's result) is this plus `outputJson`, which never leaves the
 * worker.
 */
export const toolExecutionSchema = z.object({
  isError: z.boolean(),
  /** Exactly what the model reads: the output truncated to maxOutputChars, or one error line. */
  text: z.string(),
  /**
   * The tool's output as stored: whole up to maxStoredOutputBytes as JSON, else a marker
   * `{ truncated: true, originalBytes, preview }`; absent on failure.
   */
  output: z.unknown().optional(),
  /**
   * Set instead of `output` once the worker stored a large output apart from the run's state (the run's
   * `outputs` key): the run's readers put it back.
   */
  outputStoredApart: z.literal(true).optional(),
  /** One of ok, error, timeout, invalid_input, unknown_tool, cancelled. */
  outcome: z.enum(toolCallOutcomes),
  status: z.number().int().optional(),
  errorCode: z.union([z.string(), z.number()]).optional(),
  /** Set when `text` was cut to maxOutputChars. */
  truncatedChars: z.number().int().optional(),
  /** Time spent in the tool's execute; 0 when it never ran. */
  durationMs: z.number().min(0),
  /**
   * Whether this call ends the run (design decision D86: a tool's call may end the run); only a successful
   * call can.
   */
  endsRun: z.boolean(),
  /** The parsed input, or the raw one when parsing never succeeded. */
  input: z.unknown(),
  /**
   * An approved call that ran: the input `execute` received (after the tool's schema), as JSON, for the
   * call's three inputs. Absent otherwise, and from workers of an earlier version.
   */
  executedInput: z.unknown().optional(),
});

export type TToolExecutionRecord = z.infer<typeof toolExecutionSchema>;

/**
 * What the child jobs return, validated when the run reads them back (never cast): a value written by
 * another version, or damaged, becomes that call's infrastructure failure instead of a misread result.
 */
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
