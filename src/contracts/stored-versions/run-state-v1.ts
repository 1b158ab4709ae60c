import { z } from "zod";

/**
 * Run state version 1, frozen: the shape version-1 builds stored, copied literally from the last build that
 * wrote it (the run state as of commit 538f954's parent). Never derive it from today's schema and never edit
 * it: today's schema may change, what is already stored in Redis does not. Its fixture is
 * run-state-v1.fixture.json beside this file; `readRunState` upgrades it to the current version.
 * Differences from version 2: planned calls kept the schema's parsed `input`, and an edit the policy
 * refused was recorded as `approved` with `verdictOnEdit: "DENY"`.
 */
const verdictV1Schema = z.enum(["ALLOW", "DENY", "NEEDS_APPROVAL"]);

const tokenUsageV1Schema = z.object({
  promptTokens: z.number().int().min(0),
  completionTokens: z.number().int().min(0),
  totalTokens: z.number().int().min(0),
});

const userContextV1Schema = z.object({
  userId: z.string().min(1).max(256),
  profile: z.string().min(1).max(128).optional(),
  roles: z.array(z.string().max(128)).max(100).optional(),
  attributes: z.record(z.string(), z.unknown()).optional(),
});

const chatToolCallV1Schema = z.object({ id: z.string(), name: z.string(), argumentsJson: z.string() });

const chatMessageV1Schema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.string() }),
  z.object({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    toolCalls: z.array(chatToolCallV1Schema).optional(),
  }),
  z.object({ role: z.literal("tool"), toolCallId: z.string(), content: z.string() }),
]);

const outcomeV1Schema = z.enum([
  "ok",
  "error",
  "timeout",
  "denied",
  "invalid_input",
  "hidden",
  "unknown_tool",
  "rejected",
  "expired",
  "cancelled",
]);

const approvalOnResultV1Schema = z.object({
  approvalId: z.string(),
  decision: z.enum(["approved", "rejected", "expired"]),
  approver: z.string().optional(),
  comment: z.string().optional(),
  decidedAt: z.number(),
  editedInput: z.unknown().optional(),
  verdictOnEdit: verdictV1Schema.optional(),
});

const toolResultPartV1Schema = z.object({
  toolCallId: z.string(),
  callId: z.string(),
  toolName: z.string(),
  step: z.number().int().min(0),
  input: z.unknown(),
  output: z.unknown().optional(),
  text: z.string(),
  isError: z.boolean(),
  status: z.number().int().optional(),
  errorCode: z.union([z.string(), z.number()]).optional(),
  outcome: outcomeV1Schema,
  verdict: verdictV1Schema.optional(),
  truncatedChars: z.number().int().optional(),
  approval: approvalOnResultV1Schema.optional(),
  durationMs: z.number().min(0),
  endedRun: z.boolean().optional(),
});

const runRequestV1Schema = z.object({
  input: z.string(),
  userContext: userContextV1Schema,
  tools: z.array(z.string()).optional(),
  additionalTools: z.array(z.string()).default([]),
  maxSteps: z.number().int().min(1),
  timeoutMs: z.number().int().min(1).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  instructions: z.string().optional(),
});

const plannedCallV1Schema = z.object({
  index: z.number().int().min(0),
  toolCallId: z.string(),
  callId: z.string(),
  toolName: z.string(),
  argumentsJson: z.string(),
  state: z.enum(["pending", "dispatched", "parked", "settled"]),
  input: z.unknown().optional(),
  verdict: verdictV1Schema.optional(),
  rejectionText: z.string().optional(),
  reason: z.string().optional(),
  approvalId: z.string().optional(),
  approval: approvalOnResultV1Schema.optional(),
  result: toolResultPartV1Schema.optional(),
  endsRun: z.boolean().optional(),
});

const stepStateV1Schema = z.object({
  stepIndex: z.number().int().min(0),
  assistantText: z.string().nullable(),
  calls: z.array(plannedCallV1Schema),
});

export const runStateV1Schema = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  threadId: z.string(),
  status: z.enum(["queued", "running", "waiting", "completed", "failed", "cancelled", "timed_out"]),
  phase: z.enum(["model", "tools", "final-model", "finished"]),
  request: runRequestV1Schema,
  requestHash: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  startedAt: z.number().optional(),
  finishedAt: z.number().optional(),
  history: z.array(chatMessageV1Schema),
  messages: z.array(chatMessageV1Schema),
  stepIndex: z.number().int().min(0),
  modelCalls: z.number().int().min(0),
  executed: z.array(z.string()),
  step: stepStateV1Schema.optional(),
  toolResults: z.array(toolResultPartV1Schema),
  endedByTool: z.string().optional(),
  stopReason: z
    .enum(["answered", "ended_by_tool", "max_steps", "cancelled", "timed_out", "failed"])
    .optional(),
  finalText: z.string().optional(),
  usage: tokenUsageV1Schema,
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

export type TRunStateV1 = z.infer<typeof runStateV1Schema>;
