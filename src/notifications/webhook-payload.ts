import { z } from "zod";
import { approvalEventTypes, type TStoredApprovalEvent } from "../contracts/index.js";
import { type IApproval, inputHashOf } from "../store/index.js";

/**
 * The body of every webhook delivery, in the Standard Webhooks shape (`type`, `timestamp`, `data`). The
 * OpenAPI document's `webhooks` section is generated from this schema, so the two cannot drift.
 */
export const webhookPayloadSchema = z.object({
  type: z.enum(approvalEventTypes),
  /** When the event happened (ISO 8601). */
  timestamp: z.string(),
  data: z.object({
    /** The approval event stream's entry id: the SSE `id:` of the same event. */
    eventId: z.string(),
    approvalId: z.string(),
    runId: z.string(),
    tenant: z.string(),
    toolName: z.string(),
    /** The approval's status after the event. */
    status: z.string().optional(),
    approver: z.string().optional(),
    expiresAt: z.number().optional(),
    /** On `approval-decided` of a rejection with a named option: the option's name. */
    rejectOption: z.string().optional(),
    /** For `approval-escalated`: the target it was escalated to and after how long. */
    escalation: z.object({ target: z.string(), afterMs: z.number() }).optional(),
    /**
     * Signed one-time links for a target with `links`, on the events of a pending approval (requested,
     * expiring, escalated). Each opens the console's confirmation page, which decides nothing until its
     * button is pressed; either link works once and spends the other.
     */
    links: z
      .object({
        /** `<consoleUrl>#/link/<token>`: approve as `approver`. */
        approve: z.string(),
        /** `<consoleUrl>#/link/<token>`: reject (with a free reason) as `approver`. */
        reject: z.string(),
        /**
         * One link per named reject option of the approval, by option name: reject with that option as
         * `approver`. All the links of one message share one use.
         */
        rejectOptions: z.array(z.object({ name: z.string(), title: z.string(), url: z.string() })).optional(),
        /** Epoch milliseconds after which both are refused (never after the approval's expiry). */
        expiresAt: z.number(),
        /** The subject the links act as (the target's `links.approver.subject`). */
        approver: z.string(),
      })
      .optional(),
    /** The approval as it was when the event was dispatched (absent when its record is gone). */
    approval: z
      .object({
        input: z.unknown(),
        reason: z.string().optional(),
        userId: z.string().optional(),
        createdBy: z.string().optional(),
        requestedAt: z.number(),
        expiresAt: z.number(),
        /** SHA-256 of the input shown here (canonical JSON): the links are bound to it. */
        inputHash: z.string().optional(),
        /** The approval's named reject options: `{ name, title, description? }` (promptFill is for the model). */
        rejectOptions: z
          .array(z.object({ name: z.string(), title: z.string(), description: z.string().optional() }))
          .optional(),
        decision: z
          .object({
            decision: z.string(),
            approver: z.string().optional(),
            comment: z.string().optional(),
            decidedAt: z.number(),
            /** The reject option chosen, by name. */
            rejectOption: z.string().optional(),
          })
          .optional(),
      })
      .optional(),
  }),
});

export type TWebhookPayload = z.infer<typeof webhookPayloadSchema>;

/** The payload of one event for every target (each target signs it with its own secret). */
export function webhookPayloadOf(
  event: TStoredApprovalEvent,
  approval: IApproval | undefined,
): TWebhookPayload {
  const escalation = escalationOf(event);
  return {
    type: event.type,
    timestamp: new Date(event.at).toISOString(),
    data: {
      eventId: event.id,
      approvalId: event.approvalId,
      runId: event.runId,
      tenant: event.tenant,
      toolName: event.toolName,
      ...(event.status !== undefined ? { status: event.status } : {}),
      ...(event.approver !== undefined ? { approver: event.approver } : {}),
      ...(event.expiresAt !== undefined ? { expiresAt: event.expiresAt } : {}),
      ...(event.rejectOption !== undefined ? { rejectOption: event.rejectOption } : {}),
      ...(escalation ? { escalation } : {}),
      ...(approval ? { approval: approvalSummaryOf(approval) } : {}),
    },
  };
}

function escalationOf(event: TStoredApprovalEvent): { target: string; afterMs: number } | undefined {
  const { target, afterMs } = event as { target?: unknown; afterMs?: unknown };
  return typeof target === "string" && typeof afterMs === "number" ? { target, afterMs } : undefined;
}

function approvalSummaryOf(approval: IApproval): NonNullable<TWebhookPayload["data"]["approval"]> {
  const decision = approval.decision;
  return {
    input: approval.input,
    requestedAt: approval.requestedAt,
    expiresAt: approval.expiresAt,
    ...(approval.reason !== undefined ? { reason: approval.reason } : {}),
    ...(approval.userContext.userId !== undefined ? { userId: approval.userContext.userId } : {}),
    ...(approval.createdBy !== undefined ? { createdBy: approval.createdBy } : {}),
    inputHash: inputHashOf(approval.input),
    ...(approval.rejectOptions !== undefined
      ? {
          rejectOptions: approval.rejectOptions.map(({ name, title, description }) => ({
            name,
            title,
            ...(description !== undefined ? { description } : {}),
          })),
        }
      : {}),
    ...(decision
      ? {
          decision: {
            decision: decision.decision,
            decidedAt: decision.decidedAt,
            ...(decision.approver !== undefined ? { approver: decision.approver } : {}),
            ...(decision.comment !== undefined ? { comment: decision.comment } : {}),
            ...(decision.rejectOption !== undefined ? { rejectOption: decision.rejectOption.name } : {}),
          },
        }
      : {}),
  };
}
