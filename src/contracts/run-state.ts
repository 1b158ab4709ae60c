import { z } from "zod";
import { approvalOnResultSchema } from "./approval-decision.js";
import { approvalInputsSchema } from "./approval-inputs.js";
import { modelFallbackReasons } from "./model-fallback.js";
import { outputSpecSchema } from "./output-spec.js";
import { toolCallOutcomes } from "./result.js";
import { EToolCallVerdict } from "./verdict.js";

/**
 * The run state as stored in Redis, versioned. Readers accept this version and the one before it and
 * upgrade on read (run-state-upgrade.ts), so a rolling deploy never strands an in-flight run. Bump
 * `runStateVersion`, move the old shape beside the upgrade and keep a fixture of it
 * (test/unit/engine/fixtures) whenever the shape changes.
 */
export const runStateVersion = 2;

const verdictSchema = z.enum(EToolCallVerdict);

export const tokenUsageSchema = z.object({
  promptTokens: z.number().int().min(0),
  completionTokens: z.number().int().min(0),
  totalTokens: z.number().int().min(0),
});

export const userContextSchema = z.object({
  userId: z.string().min(1).max(256),
  profile: z.string().min(1).max(128).optional(),
  roles: z.array(z.string().max(128)).max(100).optional(),
  attributes: z.record(z.string(), z.unknown()).optional(),
});

export const chatToolCallSchema = z.object({ id: z.string(), name: z.string(), argumentsJson: z.string() });

export const chatMessageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.string() }),
  z.object({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    toolCalls: z.array(chatToolCallSchema).optional(),
  }),
  z.object({ role: z.literal("tool"), toolCallId: z.string(), content: z.string() }),
]);

const outcomeSchema = z.enum(toolCallOutcomes);

/**
 * A fork's call whose input the fork request gave (by the fork's creator, its `createdBy`), not the
 * model: `originalInput` is the input the call had in the run forked.
 */
export const forkEditSchema = z.object({ originalInput: z.unknown() });

export const toolResultPartSchema = z.object({
  toolCallId: z.string(),
  callId: z.string(),
  toolName: z.string(),
  step: z.number().int().min(0),
  input: z.unknown(),
  output: z.unknown().optional(),
  /** Tollgate's own: the output is in the run's `outputs` key; never set in what the run's readers return. */
  outputStoredApart: z.literal(true).optional(),
  text: z.string(),
  isError: z.boolean(),
  status: z.number().int().optional(),
  errorCode: z.union([z.string(), z.number()]).optional(),
  outcome: outcomeSchema,
  verdict: verdictSchema.optional(),
  truncatedChars: z.number().int().optional(),
  approval: approvalOnResultSchema.optional(),
  /** A call that went through an approval: proposed, approved and executed input side by side. */
  inputs: approvalInputsSchema.optional(),
  durationMs: z.number().min(0),
  endedRun: z.boolean().optional(),
  /** A fork's result taken over from the run it forked (that run's call), not run again. */
  takenFrom: z.object({ runId: z.string(), callId: z.string() }).optional(),
  /** The fork's call whose input the fork request gave, not the model. */
  forkEdit: forkEditSchema.optional(),
});

/** One model call: its step, the named model that answered it, its tokens and how long it took. */
export const modelReplySchema = z.object({
  step: z.number().int().min(0),
  model: z.string(),
  usage: tokenUsageSchema,
  /**
   * From the request to the whole answer, fallbacks and the client's retries included (absent in states
   * saved before it was recorded).
   */
  durationMs: z.number().min(0).optional(),
  /**
   * The switches from one named model to the next the call made before this one answered (the chosen
   * model first), in order; absent when the chosen model answered.
   */
  fallbacks: z
    .array(z.object({ from: z.string(), to: z.string(), reason: z.enum(modelFallbackReasons) }))
    .optional(),
  /** A fork's reply taken over from the run it forked (not asked again). */
  takenFrom: z.object({ runId: z.string() }).optional(),
});

/** The run request after validation, as the engine uses it. */
export const runRequestSchema = z.object({
  input: z.string(),
  userContext: userContextSchema,
  tools: z.array(z.string()).optional(),
  additionalTools: z.array(z.string()).default([]),
  maxSteps: z.number().int().min(1),
  timeoutMs: z.number().int().min(1).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  instructions: z.string().optional(),
  /** The tenant the run belongs to; absent: "default" (runs stored before tenants existed). */
  tenant: z.string().optional(),
  /** The subject (token or library caller) that created the run. */
  createdBy: z.string().optional(),
  /** The most tokens (prompt + completion, all model calls) before the run's last step without tools. */
  maxTotalTokens: z.number().int().min(1).optional(),
  /** The most tool calls the model may ask for; calls past it are refused, then one last step. */
  maxToolCalls: z.number().int().min(1).optional(),
  /** The gateway's named model the run asked for; absent: `default`. */
  model: z.string().optional(),
  /** The structured answer asked for (the request's, else the gateway's default); free text when absent. */
  output: outputSpecSchema.optional(),
  /** The run this one re-runs (same request, maybe another input or user): see POST /v1/runs/{runId}/rerun. */
  rerunOf: z.string().optional(),
  /**
   * The run and tool call this one was forked from: it started with that run's transcript up to the call
   * and ran the call again (see POST /v1/runs/{runId}/fork).
   */
  forkOf: z.object({ runId: z.string(), callId: z.string() }).optional(),
  /**
   * The failed, timed-out or cancelled run this one continues from its last durable state: its completed
   * calls taken over, the step that failed tried again (see POST /v1/runs/{runId}/resume).
   */
  resumeOf: z.string().optional(),
  /** The schedule whose tick created the run (POST /v1/schedules). */
  scheduleId: z.string().optional(),
  /** The time of that tick (epoch ms): one run per tick. */
  scheduledAt: z.number().optional(),
});

/** One call of the current step and how far it got. */
export const plannedCallSchema = z.object({
  index: z.number().int().min(0),
  toolCallId: z.string(),
  callId: z.string(),
  toolName: z.string(),
  argumentsJson: z.string(),
  /**
   * pending: its arguments passed the schema, waiting for its verdict; dispatched: a tool job runs it;
   * parked: an approval job waits for a human; settled: `result` is final. The parsed input is never
   * stored: each decision and the execution parse the raw arguments (or a human's raw edit) once, so
   * transforms, defaults and non-JSON values (a Date) are seen the same way by the policy and `execute`.
   */
  state: z.enum(["pending", "dispatched", "parked", "settled"]),
  verdict: verdictSchema.optional(),
  rejectionText: z.string().optional(),
  reason: z.string().optional(),
  approvalId: z.string().optional(),
  /** The human's decision once known; an approved call then runs as a tool job with the edit, if any. */
  approval: approvalOnResultSchema.optional(),
  result: toolResultPartSchema.optional(),
  /** Whether this call's successful result ends the run. */
  endsRun: z.boolean().optional(),
  /** The fork's call whose input the fork request gave, not the model. */
  forkEdit: forkEditSchema.optional(),
});

export const stepStateSchema = z.object({
  stepIndex: z.number().int().min(0),
  /** The named model whose reply planned this step (absent in states saved before named models). */
  model: z.string().optional(),
  /** The model's text beside its tool calls. */
  assistantText: z.string().nullable(),
  calls: z.array(plannedCallSchema),
});

export const runStatusSchema = z.enum([
  "queued",
  "running",
  "waiting",
  "completed",
  "failed",
  "cancelled",
  "timed_out",
]);

export const runStateSchema = z.object({
  schemaVersion: z.literal(runStateVersion),
  runId: z.string(),
  threadId: z.string(),
  /** The run's request named no thread: the thread is the run's own, so nothing can be queued before it. */
  ownsThread: z.boolean().optional(),
  status: runStatusSchema,
  /** What the engine does next. */
  phase: z.enum(["model", "tools", "final-model", "finished"]),
  request: runRequestSchema,
  /** Hash of the request, to tell a retried enqueue from a different request with the same key. */
  requestHash: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  startedAt: z.number().optional(),
  finishedAt: z.number().optional(),
  /** The thread's messages before this run, read when the run started. */
  history: z.array(chatMessageSchema),
  /**
   * The run starts with the `history` it was created with, not the thread's as it is then: a resume goes
   * on with what the run it continues read (the thread now holds that run's own messages too).
   */
  historyCarried: z.literal(true).optional(),
  /**
   * How many of this run's first `messages` its thread's history already holds (a resume continues a run
   * whose finish put them there): its own finish appends only the messages after them.
   */
  messagesOnThread: z.number().int().min(0).optional(),
  /** This run's messages: the user input, then assistant and tool messages as steps settle. */
  messages: z.array(chatMessageSchema),
  /** Model steps with tools completed. */
  stepIndex: z.number().int().min(0),
  /** Model requests made (the response's `steps`). */
  modelCalls: z.number().int().min(0),
  executed: z.array(z.string()),
  /**
   * Hash of the MCP tool list the run started with (its servers' tools, names and JSON Schemas), stored
   * apart under this hash: every later step, approval, edit and tool job of the run reads the schemas the
   * model saw. Absent for a gateway without MCP servers.
   */
  toolListHash: z.string().optional(),
  step: stepStateSchema.optional(),
  toolResults: z.array(toolResultPartSchema),
  endedByTool: z.string().optional(),
  stopReason: z
    .enum(["answered", "ended_by_tool", "max_steps", "budget_exhausted", "cancelled", "timed_out", "failed"])
    .optional(),
  finalText: z.string().optional(),
  /** The final answer parsed and validated against `request.output`'s schema. */
  output: z.unknown().optional(),
  /** Answers that failed `request.output`'s schema and were sent back to the model with their errors. */
  outputRetries: z.number().int().min(0).optional(),
  usage: tokenUsageSchema,
  /**
   * Which named model answered each model call, with that call's tokens (prices are per model). Absent in
   * states saved before named models.
   */
  modelReplies: z.array(modelReplySchema).optional(),
  error: z
    .object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() })
    .optional(),
});

export type TRunState = z.infer<typeof runStateSchema>;
export type TRunRequest = z.infer<typeof runRequestSchema>;
export type TPlannedCall = z.infer<typeof plannedCallSchema>;
export type TStepState = z.infer<typeof stepStateSchema>;
export type TModelReply = z.infer<typeof modelReplySchema>;

export const terminalStatuses = new Set(["completed", "failed", "cancelled", "timed_out"]);

export function isTerminal(state: Pick<TRunState, "status">): boolean {
  return terminalStatuses.has(state.status);
}

/**
 * The status a reader is shown: `waiting` while a call of the unfinished run waits for a person (parked
 * for an approval), else the stored one. Read from the record, which takes a decision up when the run
 * next moves (an approved call once its tool has run).
 */
export function reportedStatusOf(state: Pick<TRunState, "status" | "step">): TRunState["status"] {
  if (isTerminal(state)) return state.status;
  return state.step?.calls.some((call) => call.state === "parked") ? "waiting" : state.status;
}
