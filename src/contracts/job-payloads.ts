import { z } from "zod";
import { userContextSchema } from "./run-state.js";
import { approvalJobV1Schema } from "./stored-versions/approval-job-v1.js";
import { toolJobV1Schema } from "./stored-versions/tool-job-v1.js";

/**
 * Job payloads, versioned and validated when read: a job written by another version of Tollgate is
 * detected instead of misread, and the previous version is upgraded on read so that jobs queued before a
 * rolling deploy still run. Payloads carry ids and what a tool worker needs without reading the run.
 */
export const runJobSchema = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  /**
   * The run's state JSON exactly as its creation stored it, carried by a new run's job so that its first
   * activation needs no read (BullMQ's moveToActive returns it with the job). Dropped from the payload by
   * the run's first save and by a cancellation; an activation that finds it gone, or is not the job's
   * first, reads the stored state. Optional and ignored by older workers (zod strips unknown keys).
   */
  state: z.string().optional(),
});

/** A run job's payload without the state: what it keeps once the run saved or was cancelled. */
export function slimRunJobData(runId: string): string {
  return JSON.stringify({ schemaVersion: 1, runId });
}

/** A schedule's tick: the job scheduler's template data. The tick's time is in the job's id. */
export const scheduleTickJobSchema = z.object({ schemaVersion: z.literal(1), scheduleId: z.string() });

export type TScheduleTickJob = z.infer<typeof scheduleTickJobSchema>;

const toolJobFields = {
  runId: z.string(),
  threadId: z.string(),
  callId: z.string(),
  toolName: z.string(),
  userContext: userContextSchema,
  /** The run's tool selection, so the worker builds the same registry (additional tools included). */
  tools: z.array(z.string()).optional(),
  additionalTools: z.array(z.string()).default([]),
  /** The run's pinned MCP tool list (TRunState.toolListHash), so the call runs the tool the model saw. */
  toolListHash: z.string().optional(),
  /** Epoch ms when the job was added: schedule-to-start latency. */
  scheduledAt: z.number(),
  /** Set when a human approved the call: the approval's record gets the call's outcome. */
  approvalId: z.string().optional(),
};

/** Version 2: the input as sent (the model's arguments or a human's edit); the tool job parses it once. */
const toolJobV2Schema = z.object({ schemaVersion: z.literal(2), rawInput: z.unknown(), ...toolJobFields });

/**
 * A tool job's payload. A version 1 job (its frozen copy: the schema's parsed input, which the tool job
 * parsed a second time) is upgraded on read: its parsed input is all there is, so it is parsed again, as
 * version 1 workers did (a transform that is not idempotent may refuse it).
 */
export const toolJobSchema = z
  .discriminatedUnion("schemaVersion", [toolJobV2Schema, toolJobV1Schema])
  .transform((job) => {
    if (job.schemaVersion === 2) return job;
    const { input, ...rest } = job;
    return { ...rest, schemaVersion: 2 as const, rawInput: input };
  });

/**
 * Version 2 carries nothing but its version: the job's id is the approval's id, and the record it names
 * holds the rest. Why: a parked approval is held for its whole TTL, and the ids repeated here cost about
 * 200 bytes of Redis per parked call.
 */
const approvalJobV2Schema = z.object({ schemaVersion: z.literal(2) });

/**
 * An approval job's payload. Both versions are read (version 1, frozen, carried the approval's ids and tool
 * name, all of which its record holds): a call parked by the previous version may wait for a
 * decision longer than a rolling deploy takes.
 */
export const approvalJobSchema = z.discriminatedUnion("schemaVersion", [
  approvalJobV2Schema,
  approvalJobV1Schema,
]);

/** The approval an approval job settles: named by its payload (version 1) or by its job id (version 2). */
export function approvalIdOfJob(job: { id?: string | undefined; data: unknown }): string {
  const data = approvalJobSchema.parse(job.data);
  if (data.schemaVersion === 1) return data.approvalId;
  if (job.id === undefined) throw new Error("An approval job without an id names no approval.");
  return job.id;
}

export type TRunJob = z.infer<typeof runJobSchema>;
export type TToolJob = z.infer<typeof toolJobSchema>;
export type TToolJobInput = z.input<typeof toolJobV2Schema>;
export type TApprovalJob = z.infer<typeof approvalJobSchema>;
