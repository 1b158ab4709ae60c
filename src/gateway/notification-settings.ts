import { z } from "zod";
import { approvalEventTypes, type TApprovalEventType } from "../contracts/index.js";
import { slackTargetSchema } from "./slack-target-settings.js";

/**
 * What a webhook target receives when it names no `events`. Escalations go to the escalation's own target (and to
 * targets that list `approval-escalated`), partial decisions and cancellations only to targets that ask.
 */
export const defaultTargetEvents: readonly TApprovalEventType[] = [
  "approval-requested",
  "approval-decided",
  "approval-expiring",
  "approval-expired",
];

/** A name that may stand in a BullMQ job id and a Redis key: no `:`, not all digits. */
const targetName = z
  .string()
  .regex(
    /^[A-Za-z][A-Za-z0-9_-]{0,63}$/,
    "letters, digits, '_' and '-', starting with a letter (at most 64)",
  );

/**
 * A Standard Webhooks secret: base64 of at least 24 bytes, optionally prefixed with `whsec_` (what
 * `openssl rand -base64 32` prints, or what a receiver's dashboard gives).
 */
export const webhookSecret = z.string().refine((secret) => {
  const base64 = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret;
  return /^[A-Za-z0-9+/]+={0,2}$/.test(base64) && Buffer.from(base64, "base64").length >= 24;
}, "must be base64 of at least 24 bytes, optionally prefixed with whsec_");

/**
 * Signed one-time links to approve or reject, added to the payload of the events of a pending approval
 * (requested, expiring, escalated) that this target receives. Each link acts as the named approver, so
 * give a target with links to one person's channel (a direct message, a personal email), not a room.
 */
export const approvalLinksSchema = z.strictObject({
  /**
   * Who the links act as: the subject recorded as the approver, and its roles for the approver rules
   * (`approvals.rules`) that name roles. The requester check and quorums apply as for a token.
   */
  approver: z.strictObject({
    subject: z.string().min(1).max(128),
    roles: z.array(z.string().min(1).max(64)).default([]),
  }),
  /**
   * The console's public address (`https://tollgate.example.com/console/`): a link is
   * `<consoleUrl>#/link/<token>`, the token in the fragment, which browsers never send to a server.
   */
  consoleUrl: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
  /** How long a link works; never past the approval's own expiry. @defaultValue 900000 (15 minutes) */
  ttlMs: z
    .number()
    .int()
    .min(10_000)
    .max(7 * 24 * 60 * 60 * 1000)
    .default(15 * 60 * 1000),
});

export const webhookTargetSchema = z.strictObject({
  /** A webhook target may say so; it is the kind of a target that names none. */
  kind: z.literal("webhook").optional(),
  /** Names the target in job ids, logs and the `target` label of the webhook metrics. */
  name: targetName,
  /** Where deliveries are POSTed (http or https). */
  url: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
  /** Signs every delivery (HMAC-SHA256, Standard Webhooks); the receiver verifies with the same secret. */
  secret: webhookSecret,
  /** The event types this target receives. @defaultValue requested, decided, expiring, expired */
  events: z.array(z.enum(approvalEventTypes)).min(1).optional(),
  /** Only approvals of these tools (or of the tags below). Neither: every tool. */
  tools: z.array(z.string().min(1)).optional(),
  /** Only approvals of tools with one of these tags (or of the tools above). */
  tags: z.array(z.string().min(1)).optional(),
  /** Signed one-time approve/reject links in this target's payloads; needs TOLLGATE_LINK_SECRET. */
  links: approvalLinksSchema.optional(),
});

/** A webhook (the default kind: signed JSON POSTs) or a Slack app (docs/NOTIFICATIONS.md). */
export const notificationTargetSchema = z.discriminatedUnion("kind", [
  webhookTargetSchema,
  slackTargetSchema,
]);

export const escalationSchema = z.strictObject({
  /** Only approvals of these tools (or of the tags below). Neither: every tool. */
  tools: z.array(z.string().min(1)).optional(),
  tags: z.array(z.string().min(1)).optional(),
  /** How long after the request an approval still pending is escalated (the issue's `escalateAfterMs`). */
  afterMs: z.number().int().min(1),
  /** The target (by name) that receives `approval-escalated`. */
  target: targetName,
});

export const notificationsSchema = z
  .strictObject({
    targets: z.array(notificationTargetSchema).default([]),
    escalations: z.array(escalationSchema).default([]),
    /**
     * How long before its expiry a still-pending approval is announced as `approval-expiring`.
     * No such event when absent.
     */
    expiringSoonMs: z.number().int().min(1).optional(),
    /** How deliveries are retried. */
    delivery: z
      .strictObject({
        /** Attempts per delivery before it is given up (counted as dropped). @defaultValue 10 */
        attempts: z.number().int().min(1).max(100).default(10),
        /** First retry delay; doubles each attempt (10 attempts ≈ 17 minutes of retries). @defaultValue 1000 */
        backoffMs: z.number().int().min(0).default(1_000),
        /** How long one HTTP attempt may take. @defaultValue 10000 */
        timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
        /**
         * Events a dead worker had read but not yet turned into delivery jobs are claimed by another
         * worker after this long. @defaultValue 30000
         */
        claimIdleMs: z.number().int().min(100).default(30_000),
      })
      .prefault({}),
  })
  .superRefine((settings, context) => {
    const names = settings.targets.map((target) => target.name);
    names.forEach((name, index) => {
      if (names.indexOf(name) !== index)
        context.addIssue({ code: "custom", path: ["targets", index, "name"], message: `"${name}" twice` });
    });
    settings.escalations.forEach((escalation, index) => {
      if (!names.includes(escalation.target))
        context.addIssue({
          code: "custom",
          path: ["escalations", index, "target"],
          message: `no target is named "${escalation.target}"`,
        });
    });
  });

export type TNotificationSettings = z.output<typeof notificationsSchema>;
export type TNotificationTarget = z.output<typeof notificationTargetSchema>;
export type TWebhookTarget = z.output<typeof webhookTargetSchema>;

/** A target that receives signed JSON POSTs (the kind of a target that names none). */
export function isWebhookTarget(target: TNotificationTarget): target is TWebhookTarget {
  return target.kind !== "slack";
}
export type TEscalation = z.output<typeof escalationSchema>;
export type TApprovalLinksSettings = z.output<typeof approvalLinksSchema>;
