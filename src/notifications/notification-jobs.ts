import { z } from "zod";
import { approvalEventTypes } from "../contracts/index.js";

/** Job names on the notifications queue. */
export const notificationJobNames = {
  deliver: "deliver",
  expiring: "approval-expiring",
  escalate: "approval-escalated",
} as const;

/**
 * One event for one target: the body is stored as sent, so every attempt signs the same bytes, except
 * that a target with `links` gets them added at each attempt (see payload-links.ts).
 */
export const deliveryJobSchema = z.object({
  schemaVersion: z.literal(1),
  target: z.string(),
  eventType: z.enum(approvalEventTypes),
  eventId: z.string(),
  /** When the event happened, epoch ms: the lag from event to delivery is measured from it. */
  eventAt: z.number(),
  approvalId: z.string(),
  body: z.string(),
});
export type TDeliveryJob = z.infer<typeof deliveryJobSchema>;

/** A delayed reminder: it appends its event only if the approval is still pending when it fires. */
export const reminderJobSchema = z.object({
  schemaVersion: z.literal(1),
  approvalId: z.string(),
  /** For an escalation: the target it goes to and its delay. */
  target: z.string().optional(),
  afterMs: z.number().optional(),
});
export type TReminderJob = z.infer<typeof reminderJobSchema>;

/** The delivery's job id and `webhook-id`: a re-read of the same stream entry adds nothing twice. */
export function deliveryJobIdOf(target: string, eventId: string): string {
  return `${target}-${eventId}`;
}

/** A stream id (`<ms>-<seq>`) as a sortable number: the order of deliveries of one approval. */
export function eventOrderOf(eventId: string): number {
  const [ms, seq] = eventId.split("-");
  return Number(ms) * 1000 + Math.min(Number(seq ?? 0), 999);
}
