import type { IApproval } from "../contracts/index.js";
import type { Logger } from "../observability/index.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import { approvalMessageOf, type IMessageOccasion } from "./approval-message.js";
import { callSlack, slackErrorCodeOf } from "./slack-client.js";
import type { ISlackConnection } from "./slack-connections.js";
import { SlackMessageRefs } from "./slack-message-refs.js";

/** One approval event for one Slack target, as the notifications queue's delivery job holds it. */
export interface ISlackDelivery {
  approvalId: string;
  occasion: IMessageOccasion;
}

export type TSlackDeliveryResult =
  | { posted: string }
  | { updated: string }
  | { skipped: "approval gone" | "message deleted" };

/** Slack's answers to `chat.update` that no retry can change: the message is gone or not the app's. */
const messageGone = new Set(["message_not_found", "cant_update_message", "channel_not_found", "is_archived"]);

/**
 * Shows an approval's current state in its target's channel: the first delivery posts the message (and
 * records where it is), every later one updates that message. Deliveries of one approval to one target
 * run one at a time and in event order (the notifications queue's order set), so the update that lands
 * last is that of the latest event; each shows the record as read now, so a late retry never shows an
 * older state than the one before it. A failure throws: the job retries it with backoff.
 */
export async function deliverToSlack(
  runtime: ITollgateRuntime,
  connection: ISlackConnection,
  delivery: ISlackDelivery,
  logger: Logger,
): Promise<TSlackDeliveryResult> {
  const approval = await runtime.approvals.get(delivery.approvalId);
  if (approval === undefined) return { skipped: "approval gone" };
  const { target, client } = connection;
  const message = approvalMessageOf(approval, target.name, delivery.occasion);
  const refs = new SlackMessageRefs(runtime.redis, runtime.keys);
  const posted = await refs.get(target.name, approval.approvalId);
  if (posted !== undefined) {
    try {
      await callSlack("chat.update", () =>
        client.chat.update({
          channel: posted.channel,
          ts: posted.ts,
          text: message.text,
          blocks: message.blocks,
        }),
      );
      return { updated: posted.ts };
    } catch (error) {
      const code = slackErrorCodeOf(error);
      if (code === undefined || !messageGone.has(code)) throw error;
      // Someone deleted the message (or the channel went): posting it again would only undo them.
      logger.warn(
        { target: target.name, approvalId: approval.approvalId, slackError: code },
        "the approval's Slack message is gone; not updated",
      );
      return { skipped: "message deleted" };
    }
  }
  const answer = await callSlack("chat.postMessage", () =>
    client.chat.postMessage({
      channel: target.channel,
      text: message.text,
      blocks: message.blocks,
      unfurl_links: false,
      unfurl_media: false,
    }),
  );
  // A worker that dies between the post and this write posts the message again when the job is retried:
  // at least once, as every delivery.
  await refs.set(
    target.name,
    approval.approvalId,
    { channel: answer.channel ?? target.channel, ts: answer.ts ?? "" },
    refTtlMs(runtime, approval),
  );
  return { posted: answer.ts ?? "" };
}

/** Kept for as long as the approval's events may come: until its expiry, then the run's retention. */
function refTtlMs(runtime: ITollgateRuntime, approval: IApproval): number {
  return Math.max(0, approval.expiresAt - runtime.now()) + runtime.options.retentionMs;
}
