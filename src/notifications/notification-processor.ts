import { DelayedError, type Job, UnrecoverableError } from "bullmq";
import type { TApprovalEvent } from "../contracts/index.js";
import { isWebhookTarget, type TNotificationSettings, type TNotificationTarget } from "../gateway/index.js";
import type { Logger, TollgateMetrics } from "../observability/index.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import { deliverToSlack, type IMessageOccasion, type ISlackConnection } from "../slack/index.js";
import type { DeliveryOrder } from "./delivery-order.js";
import {
  deliveryJobSchema,
  notificationJobNames,
  reminderJobSchema,
  type TDeliveryJob,
} from "./notification-jobs.js";
import { bodyWithLinks } from "./payload-links.js";
import { appendReminderEvent } from "./reminder-event.js";
import { sendWebhook } from "./send-webhook.js";
import { webhookPayloadSchema } from "./webhook-payload.js";

/** A delivery waiting for an earlier one looks again after this long, should nobody wake it first. */
const orderRecheckMs = 5_000;

export interface INotificationContext {
  runtime: ITollgateRuntime;
  settings: TNotificationSettings;
  order: DeliveryOrder;
  logger: Logger;
  metrics?: TollgateMetrics | undefined;
  /** The Slack targets' connections by target name (bot token and Web API client). */
  slack: ReadonlyMap<string, ISlackConnection>;
}

/** Processes the notifications queue: deliveries (webhooks, Slack), and the reminders that append events. */
export function createNotificationProcessor(context: INotificationContext) {
  return async (job: Job, token?: string): Promise<unknown> => {
    if (job.name === notificationJobNames.deliver) return deliver(context, job, token);
    if (job.name === notificationJobNames.expiring || job.name === notificationJobNames.escalate)
      return remind(context, job);
    throw new UnrecoverableError(`Unknown notification job "${job.name}".`);
  };
}

async function deliver(context: INotificationContext, job: Job, token: string | undefined) {
  const data = deliveryJobSchema.parse(job.data);
  const jobId = String(job.id);
  const target = context.settings.targets.find((candidate) => candidate.name === data.target);
  if (!target) {
    // The target was removed from the configuration since the event was read: nothing to send it to.
    await context.order.settle(data.target, data.approvalId, jobId);
    return { skipped: "unknown target" };
  }
  if (!(await context.order.isNext(data.target, data.approvalId, jobId))) {
    await job.moveToDelayed(Date.now() + orderRecheckMs, token);
    throw new DelayedError();
  }
  const startedAt = performance.now();
  const observation = { target: data.target, event: data.eventType };
  try {
    const sent = await send(context, target, data, jobId);
    context.metrics?.webhookDelivery({
      ...observation,
      outcome: "delivered",
      durationSeconds: (performance.now() - startedAt) / 1000,
      lagSeconds: (context.runtime.now() - data.eventAt) / 1000,
    });
    await context.order.settle(data.target, data.approvalId, jobId);
    return sent;
  } catch (error) {
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    context.metrics?.webhookDelivery({
      ...observation,
      outcome: "failed",
      durationSeconds: (performance.now() - startedAt) / 1000,
    });
    if (lastAttempt) {
      context.metrics?.webhookDelivery({ ...observation, outcome: "dropped" });
      context.logger.error(
        { err: error, target: data.target, event: data.eventType, approvalId: data.approvalId },
        "webhook delivery dropped after its last attempt",
      );
      // Given up: the later deliveries of this approval must not wait for it any longer.
      await context.order.settle(data.target, data.approvalId, jobId);
    } else {
      context.logger.warn(
        { err: error, target: data.target, event: data.eventType, attempt: job.attemptsMade + 1 },
        "webhook delivery failed; retried with backoff",
      );
    }
    throw error;
  }
}

/**
 * One attempt of a delivery, by the target's kind: a signed webhook POST, or the Slack message posted or
 * updated. Either throws to be retried.
 */
async function send(
  context: INotificationContext,
  target: TNotificationTarget,
  data: TDeliveryJob,
  messageId: string,
): Promise<unknown> {
  if (!isWebhookTarget(target)) {
    const connection = context.slack.get(target.name);
    // The worker connects every Slack target when it starts: one missing is a bug, not an outage.
    if (connection === undefined) throw new UnrecoverableError(`No Slack connection for "${target.name}".`);
    return deliverToSlack(
      context.runtime,
      connection,
      { approvalId: data.approvalId, occasion: occasionOf(data) },
      context.logger,
    );
  }
  const body = target.links ? await bodyWithLinks(context.runtime, target, data) : data.body;
  const status = await sendWebhook(
    {
      url: target.url,
      secret: target.secret,
      messageId,
      body,
      timeoutMs: context.settings.delivery.timeoutMs,
    },
    context.runtime.now,
  );
  return { status };
}

/** What the event adds to a Slack message: its type, and an escalation's delay. */
function occasionOf(data: TDeliveryJob): IMessageOccasion {
  const parsed = webhookPayloadSchema.safeParse(JSON.parse(data.body));
  const escalation = parsed.success ? parsed.data.data.escalation : undefined;
  return { type: data.eventType, ...(escalation !== undefined ? { escalation } : {}) };
}

/**
 * An expiring-soon or escalation reminder: appends its event to the approval event stream only if the
 * approval is still pending (checked in the same Lua script), and only once per reminder.
 */
async function remind(context: INotificationContext, job: Job) {
  const data = reminderJobSchema.parse(job.data);
  const approval = await context.runtime.approvals.get(data.approvalId);
  if (approval?.status !== "pending") return { appended: false };
  const event: TApprovalEvent = {
    type: job.name === notificationJobNames.expiring ? "approval-expiring" : "approval-escalated",
    approvalId: approval.approvalId,
    runId: approval.runId,
    tenant: approval.tenant ?? "default",
    toolName: approval.toolName,
    at: context.runtime.now(),
    status: "pending",
    expiresAt: approval.expiresAt,
    ...(data.target !== undefined ? { target: data.target } : {}),
    ...(data.afterMs !== undefined ? { afterMs: data.afterMs } : {}),
  };
  const appended = await appendReminderEvent(context.runtime, String(job.id), event, approval.expiresAt);
  return { appended };
}
