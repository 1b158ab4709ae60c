import { z } from "zod";
import { userContextSchema } from "../engine/index.js";

/**
 * Job payloads, versioned and validated when read: a job written by another version of Tollgate is
 * detected instead of misread. Payloads carry ids and what a tool worker needs without reading the run.
 */
export const runJobSchema = z.object({ schemaVersion: z.literal(1), runId: z.string() });

export const toolJobSchema = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  threadId: z.string(),
  callId: z.string(),
  toolName: z.string(),
  input: z.unknown(),
  userContext: userContextSchema,
  /** The run's tool selection, so the worker builds the same registry (additional tools included). */
  tools: z.array(z.string()).optional(),
  additionalTools: z.array(z.string()).default([]),
  /** Epoch ms when the job was added: schedule-to-start latency. */
  scheduledAt: z.number(),
});

export const approvalJobSchema = z.object({
  schemaVersion: z.literal(1),
  approvalId: z.string(),
  runId: z.string(),
  callId: z.string(),
  toolName: z.string(),
});

export type TRunJob = z.infer<typeof runJobSchema>;
export type TToolJob = z.infer<typeof toolJobSchema>;
export type TToolJobInput = z.input<typeof toolJobSchema>;
export type TApprovalJob = z.infer<typeof approvalJobSchema>;
