import { z } from "zod";
import { approvalEventTypes, type TApprovalEventType } from "../contracts/index.js";

/**
 * What a Slack target receives when it names no `events`: every change its message shows, so the message
 * posted at the request is updated after a vote, the decision, an expiry or a cancellation, wherever it
 * was made. Escalations go to the escalation's own target, as for webhooks.
 */
export const defaultSlackTargetEvents: readonly TApprovalEventType[] = [
  "approval-requested",
  "approval-partially-decided",
  "approval-decided",
  "approval-expiring",
  "approval-expired",
  "approval-cancelled",
];

/** Slack's Web API, where its methods are `<base>chat.postMessage`. */
export const defaultSlackApiUrl = "https://slack.com/api/";

/** The name of an environment variable (never its value: secrets stay out of the gateway module). */
const environmentVariableName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "an environment variable's name: letters, digits and '_'");

/** A Slack user id: `U…` in a workspace, `W…` in an Enterprise Grid organisation. */
export const slackUserIdPattern = /^[UW][A-Z0-9]{2,30}$/;

const approverSchema = z.strictObject({
  /** The subject recorded as the approver, and matched by approver rules that name subjects. */
  subject: z.string().min(1).max(128),
  /** Its roles, for approver rules that name roles. */
  roles: z.array(z.string().min(1).max(64)).default([]),
});

/**
 * Who a Slack user decides as. The table first; a user it does not list decides as the email address of
 * their Slack profile when `byEmail` is set (read with `users.info`, which needs the `users:read` and
 * `users:read.email` scopes), else is refused (TG_SLACK_USER_UNMAPPED).
 */
const slackApproversSchema = z
  .strictObject({
    /** Slack user id → the approver it decides as: `{ "U024BE7LH": { subject: "dana@example.com" } }`. */
    users: z
      .record(z.string(), approverSchema)
      .superRefine((users, context) => {
        for (const userId of Object.keys(users))
          if (!slackUserIdPattern.test(userId))
            context.addIssue({ code: "custom", path: [userId], message: "not a Slack user id (U… or W…)" });
      })
      .default({}),
    /** Users not in `users` decide as their profile's email address (lower-cased). */
    byEmail: z
      .strictObject({
        /**
         * Only addresses of these domains are taken (`example.com`): in a channel shared with another
         * organisation (Slack Connect), its members' addresses are not yours to trust. Absent: any.
         */
        domains: z.array(z.string().min(1).max(253)).min(1).optional(),
        /** Roles by email address, for approver rules that name roles. */
        roles: z.record(z.string().min(3).max(254), z.array(z.string().min(1).max(64))).default({}),
      })
      .optional(),
  })
  .prefault({});

/**
 * A Slack app that posts each approval to a channel with Approve, Edit, Reject and the named reject
 * options as buttons, and updates the message once decided. Its interactivity requests come to
 * `POST /v1/integrations/slack/interactivity`, signed with the app's signing secret.
 */
export const slackTargetSchema = z.strictObject({
  kind: z.literal("slack"),
  /** Names the target in job ids, logs, metric labels and the buttons it posts. */
  name: z
    .string()
    .regex(
      /^[A-Za-z][A-Za-z0-9_-]{0,63}$/,
      "letters, digits, '_' and '-', starting with a letter (at most 64)",
    ),
  /** The channel the bot posts to: its id (`C0123ABCD`), or a user's id for a direct message. */
  channel: z.string().min(1).max(80),
  /** The environment variable holding the bot token (`xoxb-…`), read by workers and the API. */
  botTokenEnv: environmentVariableName,
  /** The environment variable holding the app's signing secret, read by the API. */
  signingSecretEnv: environmentVariableName,
  /** Slack's Web API base (a stand-in's, in tests). @defaultValue https://slack.com/api/ */
  apiUrl: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).default(defaultSlackApiUrl),
  approvers: slackApproversSchema,
  /** The event types this target receives. @defaultValue every type its message shows (not escalated) */
  events: z.array(z.enum(approvalEventTypes)).min(1).optional(),
  /** Only approvals of these tools (or of the tags below). Neither: every tool. */
  tools: z.array(z.string().min(1)).optional(),
  /** Only approvals of tools with one of these tags (or of the tools above). */
  tags: z.array(z.string().min(1)).optional(),
});

export type TSlackTarget = z.output<typeof slackTargetSchema>;
export type TSlackApprovers = TSlackTarget["approvers"];
