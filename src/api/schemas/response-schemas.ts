import { z } from "zod";
import {
  approvalViewSchema,
  EToolCallVerdict,
  runProgressSchema,
  runStateSchema,
  runSummarySchema,
  scheduleViewSchema,
  type TRunEventType,
} from "../../contracts/index.js";
import { approvalLinkActions } from "../../links/index.js";

/*
 * Response schemas: for the OpenAPI document only (responses are serialised as they are). Built from the
 * stored shapes where those exist, so the document follows them.
 */

const runStatusSchema = runStateSchema.shape.status;

export const enqueuedRunSchema = z.object({
  runId: z.string(),
  threadId: z.string(),
  status: runStatusSchema,
  created: z.boolean().describe("False when the Idempotency-Key matched an existing run."),
});

export const gatewayResponseSchema = z.object({
  runId: z.string(),
  threadId: z.string(),
  status: z.enum(["completed", "failed", "cancelled", "timed_out"]),
  text: z.string().describe("The model's final answer."),
  output: z
    .unknown()
    .optional()
    .describe("The structured answer, parsed and validated against the request's `output.schema`."),
  toolResults: z.array(runStateSchema.shape.toolResults.element),
  endedByTool: z.string().optional(),
  stopReason: runStateSchema.shape.stopReason.unwrap(),
  steps: z.number().int(),
  usage: runStateSchema.shape.usage,
  modelReplies: runStateSchema.shape.modelReplies.describe(
    "Which named model answered each model call, with its tokens.",
  ),
  error: z
    .object({
      code: z.string(),
      message: z.string(),
      details: z
        .record(z.string(), z.unknown())
        .optional()
        .describe("As the code's documentation says (TG_OUTPUT_INVALID: the schema's `issues`)."),
    })
    .optional(),
});

export const approvalSchema = approvalViewSchema;

/** What the token reading a pending approval may do with it. */
const approvalViewerSchema = z.object({
  mayDecide: z
    .boolean()
    .describe("Whether the approver rules and the requester check let this token approve or reject it."),
  refusal: z
    .object({
      rule: z
        .string()
        .describe("The rule that refuses (`requester-is-never-approver` for the requester check)."),
      message: z.string().describe("Why, as a refused decision's 403 says it."),
    })
    .optional(),
});

export type TApprovalViewer = z.infer<typeof approvalViewerSchema>;

/** `GET /v1/approvals/{approvalId}`: the approval, and for a token that may decide, what it may do. */
export const approvalForViewerSchema = approvalSchema.extend({
  viewer: approvalViewerSchema
    .optional()
    .describe("A pending approval read by a token with approvals:decide: whether this token may decide it."),
});

/** What an approval link's confirmation page shows before anything is decided. */
export const approvalLinkViewSchema = z.object({
  action: z.enum(approvalLinkActions).describe("What confirming the link does."),
  approver: z.string().describe("The subject the link acts as (recorded as the approver)."),
  expiresAt: z.number().describe("Epoch milliseconds after which the link is refused."),
  used: z.boolean().describe("Whether this link, or its approve/reject twin, was redeemed already."),
  approval: approvalSchema,
  rejectOption: z
    .object({ name: z.string(), title: z.string(), description: z.string().optional() })
    .optional()
    .describe("A reject link of a named option: the option (the model reads its promptFill)."),
  inputHash: z
    .string()
    .optional()
    .describe(
      "SHA-256 of the input the link's message showed; another than `approval.inputHash` means redeeming is refused (TG_APPROVAL_STALE).",
    ),
});

const forkLinkSchema = z.object({ runId: z.string(), callId: z.string() });

export const runViewSchema = z.object({
  runId: z.string(),
  threadId: z.string(),
  status: runStatusSchema.describe("`waiting` while one of the run's approvals is pending."),
  phase: runStateSchema.shape.phase,
  steps: z.number().int().describe("Model calls made so far."),
  createdAt: z.number(),
  startedAt: z.number().optional(),
  finishedAt: z.number().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  tenant: z.string().optional().describe("The run's tenant; absent: default."),
  createdBy: z.string().optional().describe("The subject that created the run."),
  pendingApprovals: z.array(approvalSchema),
  response: gatewayResponseSchema.optional().describe("Present once the run finished."),
  rerunOf: z.string().optional().describe("The run this one re-ran."),
  reruns: z.array(z.string()).optional().describe("The runs that re-ran this one, oldest first."),
  userId: z.string().describe("The user the run acts for."),
  input: z.string().describe("The user message the run was asked."),
  progress: runProgressSchema
    .optional()
    .describe(
      "While the run is unfinished: the calls settled so far (input, output or error, duration, decision), " +
        "each model reply (which named model answered, its tokens) and the current step's open calls. " +
        "A finished run has `response` instead.",
    ),
  forkOf: forkLinkSchema.optional().describe("The run and call this one was forked from."),
  forks: z
    .array(forkLinkSchema)
    .optional()
    .describe("The runs forked from this one, oldest first, with the call each started at."),
  resumeOf: z.string().optional().describe("The failed, timed-out or cancelled run this one continues."),
  resumedBy: z
    .string()
    .optional()
    .describe("The run that continues this one (POST /v1/runs/{runId}/resume)."),
  scheduleId: z.string().optional().describe("The schedule whose tick created the run."),
  scheduledAt: z.number().optional().describe("The time of that tick (epoch ms)."),
});

/** `GET /v1/schedules`: a page of schedules, newest first. */
export const scheduleListSchema = z.object({
  schedules: z.array(scheduleViewSchema),
  nextCursor: z.string().optional().describe("Pass as `cursor` for the next page; absent on the last page."),
});

export const scheduleDeletedSchema = z.object({ scheduleId: z.string(), deleted: z.literal(true) });

/** `GET /v1/runs`: a page of runs as a listing shows them. */
export const runListSchema = z.object({
  runs: z.array(runSummarySchema),
  nextCursor: z.string().optional().describe("Pass as `cursor` for the next page; absent on the last page."),
});

/** `POST /v1/runs/{runId}/rerun`: the new run. */
export const rerunSchema = enqueuedRunSchema.extend({ rerunOf: z.string().describe("The run re-run.") });

/** `POST /v1/runs/{runId}/resume`: the run that continues it (the one of an earlier request: `created: false`). */
export const resumeSchema = enqueuedRunSchema.extend({
  resumeOf: z.string().describe("The run it continues."),
});

/** `POST /v1/runs/{runId}/fork`: the new run. */
export const forkSchema = enqueuedRunSchema.extend({
  forkOf: forkLinkSchema.describe("The run and call it was forked from."),
});

const transcriptMessageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("user"), content: z.string() }),
  z.object({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    toolCalls: z
      .array(
        z.object({
          id: z.string(),
          name: z.string(),
          argumentsJson: z.string().describe("The model's own arguments, as it proposed them."),
          edit: z
            .object({
              kind: z.enum(["approval", "fork"]),
              input: z.unknown(),
              by: z.string().optional(),
            })
            .optional()
            .describe(
              "The input that ran instead: an approver's approved edit (`by` the approver) or the input a " +
                "fork's request gave the call (`by` who forked the run).",
            ),
        }),
      )
      .optional(),
  }),
  z.object({
    role: z.literal("tool"),
    toolCallId: z.string(),
    toolName: z.string().optional(),
    content: z.string().describe("What the model read of the tool's result."),
  }),
]);

export const transcriptSchema = z.object({
  runId: z.string(),
  threadId: z.string(),
  status: runStatusSchema.describe("As listings show it: `waiting` while a call waits for a person."),
  userId: z.string(),
  history: z.array(transcriptMessageSchema).describe("The thread's earlier runs, as the model read them."),
  messages: z
    .array(transcriptMessageSchema)
    .describe("This run's messages so far; the step in progress (its calls and the results in) last."),
});

export const cancelAcceptedSchema = z.object({
  runId: z.string(),
  cancelRequested: z.literal(true),
});

export const deletedThreadSchema = z.object({
  threadId: z.string(),
  deletedRuns: z.number().int().describe("Runs whose state and events were deleted with the thread."),
  cancelledRuns: z.number().int().describe("Runs cancelled first (force=true only)."),
});

export const approvalListSchema = z.object({
  approvals: z.array(approvalSchema),
  nextCursor: z.string().optional().describe("Pass as `cursor` for the next page; absent on the last page."),
});

export const toolListSchema = z.object({
  tools: z.array(
    z.object({
      name: z.string(),
      description: z.string(),
      inputSchema: z.record(z.string(), z.unknown()).describe("JSON Schema of the input the model sends."),
      tags: z.array(z.string()),
      policyKind: z.enum([...Object.values(EToolCallVerdict), "PREDICATE"]),
      mayNeedApproval: z
        .boolean()
        .describe(
          "Whether a call can wait for a human: a NEEDS_APPROVAL or PREDICATE policy, or a profile's approvals floor naming the tool or a tag of it (never for DENY).",
        ),
      readOnly: z
        .boolean()
        .describe(
          "The tool changes nothing outside itself (the tool's readOnly, an MCP tool's readOnlyHint): a rerun or fork repeats its calls without asking.",
        ),
      idempotent: z
        .boolean()
        .describe(
          "Calling it again with the same input has no further effect (the tool's idempotent, an MCP tool's idempotentHint).",
        ),
      extra: z
        .boolean()
        .describe("Offered only to runs that name it in additionalTools (the gateway's extraTools)."),
      mcpServer: z.string().optional().describe("The MCP server serving it, for an MCP tool."),
    }),
  ),
  mcpServers: z
    .array(
      z.discriminatedUnion("status", [
        z.object({
          server: z.string(),
          status: z.literal("listed"),
          toolListHash: z.string().describe("SHA-256 of the server's tool list as a worker published it."),
          publishedAt: z.number().describe("When a worker last published it (ms since the epoch)."),
          tools: z.number().int(),
        }),
        z.object({ server: z.string(), status: z.literal("not_listed") }),
      ]),
    )
    .describe(
      "The gateway's MCP servers: `listed` when a worker published the server's tools in the last 30 s, " +
        "`not_listed` otherwise (no worker running or reaching it); their tools are then absent above.",
    ),
});

/** Every event type, checked against the store's union: a type added there fails to compile here. */
const runEventTypes = {
  "run-queued": true,
  "run-resumed": true,
  "run-started": true,
  "model-replied": true,
  "text-delta": true,
  "step-retracted": true,
  "tool-call-dispatched": true,
  "model-fallback": true,
  "tool-call-settled": true,
  "tool-call-parked": true,
  "approval-decided": true,
  "step-settled": true,
  "run-cancel-requested": true,
  "run-finished": true,
} satisfies Record<TRunEventType, true>;

export const runEventSchema = z.object({
  id: z.string().describe("The stream entry id; send it back as Last-Event-ID to resume after it."),
  runId: z.string(),
  type: z.enum(Object.keys(runEventTypes) as [TRunEventType, ...TRunEventType[]]),
  data: z.record(z.string(), z.unknown()),
});

export const healthSchema = z.object({ status: z.literal("ok") });

export const readySchema = z.object({ status: z.literal("ready") });

const costSchema = z.object({ prompt: z.number(), completion: z.number(), total: z.number() });

/** `GET /v1/usage`: tokens per tenant and model over the days asked, with their cost where priced. */
export const usageReportSchema = z.object({
  from: z.string(),
  to: z.string(),
  usage: z.array(
    z.object({
      tenant: z.string(),
      model: z.string(),
      promptTokens: z.number().int(),
      completionTokens: z.number().int(),
      totalTokens: z.number().int(),
      replies: z.number().int(),
      cost: costSchema.optional().describe("At the gateway's `prices`; absent for a model without a price."),
    }),
  ),
});
