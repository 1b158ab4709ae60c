import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { JobsOptions } from "bullmq";
import type { TStoredApprovalEvent } from "../contracts/index.js";
import { escalationsOfTool, mcpServerOfToolName, targetsOfEvent } from "../gateway/index.js";
import { ruleToolOfApproval } from "../runtime/approval-rule-tool.js";
import { type ITollgateRedis, toStoredApprovalEvent } from "../store/index.js";
import { earlierPendingEvents, type TStreamEntry } from "./earlier-pending-events.js";
import { forgetConsumer, forgetIdleConsumers } from "./group-consumers.js";
import {
  deliveryJobIdOf,
  eventOrderOf,
  notificationJobNames,
  type TDeliveryJob,
  type TReminderJob,
} from "./notification-jobs.js";
import type { INotificationContext } from "./notification-processor.js";
import { webhookPayloadOf } from "./webhook-payload.js";

/** The consumer group every worker of a deployment reads the approval event stream in. */
export const notificationsGroup = "notifications";

/** A pause after a failed read (Redis down): the loop tries again, it never gives up. */
const retryAfterErrorMs = 1_000;
const readBlockMs = 2_000;
const readCount = 100;
/**
 * A consumer holding no pending entry and idle this many claimIdleMs is removed from the group: a dead
 * worker's (its entries were claimed long before). A live worker that had nothing to read for that long
 * may be removed too: harmless, as it holds nothing and the group creates it again when it next reads.
 */
const forgetConsumerAfterClaimIdles = 10;

/**
 * Turns approval events into delivery jobs. Workers read the stream in one consumer group, so each event
 * is dispatched by one worker; an entry is acknowledged only after its jobs were added (their ids derive
 * from the target and the entry id, so a re-read adds nothing twice), and the entries a dead worker read
 * but never acknowledged are claimed by another after `claimIdleMs`. Before dispatching an event, the
 * earlier events of the same approval still pending in the group are dispatched too (again, harmlessly),
 * so that a delivery never exists before the ones of its approval's earlier events. An approval request
 * also schedules its reminders (expiring soon, escalations) as delayed jobs.
 */
export class ApprovalEventDispatcher {
  private stopped = false;
  private loop: Promise<void> | undefined;
  private readonly consumer = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;

  constructor(
    private readonly context: INotificationContext,
    /** A connection of its own: the blocking read holds it. */
    private readonly reader: ITollgateRedis,
  ) {}

  /**
   * Creates the group where the stream ends now (an existing group is kept): a worker starts it before it
   * parks any call, so every approval's events from its request on are read.
   */
  async start(): Promise<void> {
    const { redis, keys } = this.context.runtime;
    await ensureGroup(redis, keys.approvalEvents());
    // Listed from the start (XINFO CONSUMERS shows the workers reading the stream), not only once it reads.
    await redis.xgroup("CREATECONSUMER", keys.approvalEvents(), notificationsGroup, this.consumer);
    this.loop = this.run();
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.reader.disconnect();
    await this.loop;
    // A clean stop leaves no consumer behind (one holding entries stays, for another worker to claim).
    await forgetConsumer(
      this.context.runtime.redis,
      this.context.runtime.keys.approvalEvents(),
      notificationsGroup,
      this.consumer,
    ).catch((error: unknown) =>
      this.context.logger.warn({ err: error }, "removing this worker's consumer from the group failed"),
    );
  }

  private async run(): Promise<void> {
    const key = this.context.runtime.keys.approvalEvents();
    let lastClaimAt = 0;
    while (!this.stopped) {
      try {
        if (Date.now() - lastClaimAt >= this.context.settings.delivery.claimIdleMs / 2) {
          lastClaimAt = Date.now();
          await this.claimStale(key);
        }
        const result = (await this.reader.xreadgroup(
          "GROUP",
          notificationsGroup,
          this.consumer,
          "COUNT",
          readCount,
          "BLOCK",
          readBlockMs,
          "STREAMS",
          key,
          ">",
        )) as [string, TStreamEntry[]][] | null;
        for (const [, entries] of result ?? []) {
          this.context.logger.debug(
            { count: entries.length, firstId: entries[0]?.[0], consumer: this.consumer },
            "approval events read",
          );
          await this.handle(key, entries);
        }
      } catch (error) {
        if (this.stopped) return;
        if (isMissingGroup(error)) {
          // The stream was deleted (a test's cleanup, an operator): start again where it ends.
          await ensureGroup(this.context.runtime.redis, key).catch(() => undefined);
        } else {
          this.context.logger.warn({ err: error }, "reading approval events failed; retrying");
        }
        await new Promise((resolve) => setTimeout(resolve, retryAfterErrorMs));
      }
    }
  }

  /**
   * Entries read by a consumer that stopped acknowledging (a dead worker, or a failed dispatch); then the
   * consumers of workers long dead, which hold nothing any more.
   */
  private async claimStale(key: string): Promise<void> {
    const { claimIdleMs } = this.context.settings.delivery;
    let start = "0-0";
    do {
      const [next, entries] = (await this.context.runtime.redis.xautoclaim(
        key,
        notificationsGroup,
        this.consumer,
        claimIdleMs,
        start,
        "COUNT",
        readCount,
      )) as [string, (TStreamEntry | null)[]];
      const claimed = entries.filter((entry): entry is TStreamEntry => entry !== null);
      if (claimed.length > 0) {
        this.context.metrics?.approvalEventsClaimed(claimed.length);
        this.context.logger.info(
          { count: claimed.length, firstId: claimed[0]![0], consumer: this.consumer },
          "claimed approval events a stopped worker read but never dispatched",
        );
      }
      await this.handle(key, claimed);
      start = next;
    } while (start !== "0-0" && !this.stopped);
    const removed = await forgetIdleConsumers(this.context.runtime.redis, key, notificationsGroup, {
      minIdleMs: forgetConsumerAfterClaimIdles * claimIdleMs,
      spare: this.consumer,
    });
    if (removed > 0) this.context.logger.info({ removed }, "removed idle consumers of stopped workers");
  }

  private async handle(key: string, entries: readonly TStreamEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const events = entries.map((entry) => this.eventOf(entry));
    const approvalIds = new Set(events.flatMap((event) => (event ? [event.approvalId] : [])));
    // Not acknowledged here: their reader does it, or whoever claims them (dispatching again adds nothing).
    for (const earlier of await earlierPendingEvents(
      this.context.runtime.redis,
      key,
      notificationsGroup,
      entries[0]![0],
      approvalIds,
    ))
      await this.dispatch(earlier);
    for (const [index, entry] of entries.entries()) {
      const event = events[index];
      if (event) await this.dispatch(event);
      this.context.logger.debug({ entryId: entry[0] }, "approval event dispatched");
      await this.context.runtime.redis.xack(key, notificationsGroup, entry[0]);
    }
  }

  private eventOf(entry: TStreamEntry): TStoredApprovalEvent | undefined {
    try {
      return toStoredApprovalEvent(entry);
    } catch (error) {
      // Unreadable: no retry can fix it. Logged and acknowledged, so it does not come back forever.
      this.context.logger.error({ err: error, entryId: entry[0] }, "unreadable approval event skipped");
      return undefined;
    }
  }

  private async dispatch(event: TStoredApprovalEvent): Promise<void> {
    const { runtime, settings } = this.context;
    const toolTags = await this.toolTagsOf(event);
    const target = (event as { target?: unknown }).target;
    const targets = targetsOfEvent(
      settings,
      { type: event.type, toolName: event.toolName, ...(typeof target === "string" ? { target } : {}) },
      toolTags,
    );
    const needsApproval = targets.length > 0 || event.type === "approval-requested";
    const approval = needsApproval ? await runtime.approvals.get(event.approvalId) : undefined;
    if (targets.length > 0) {
      const body = JSON.stringify(webhookPayloadOf(event, approval));
      const jobs = targets.map((target) => {
        const jobId = deliveryJobIdOf(target.name, event.id);
        const data: TDeliveryJob = {
          schemaVersion: 1,
          target: target.name,
          eventType: event.type,
          eventId: event.id,
          eventAt: event.at,
          approvalId: event.approvalId,
          body,
        };
        return {
          name: notificationJobNames.deliver,
          data,
          opts: {
            ...this.retainedJobOptions(jobId),
            attempts: settings.delivery.attempts,
            backoff: { type: "exponential", delay: settings.delivery.backoffMs },
          },
        };
      });
      // The order first: a delivery whose job exists is always in it.
      for (const job of jobs)
        await this.context.order.enqueue(
          job.data.target,
          event.approvalId,
          job.opts.jobId!,
          eventOrderOf(event.id),
        );
      await runtime.queues.notifications.addBulk(jobs);
    }
    if (event.type === "approval-requested" && approval?.status === "pending") {
      await this.scheduleReminders(
        approval.approvalId,
        approval.requestedAt,
        approval.expiresAt,
        event.toolName,
        toolTags,
      );
    }
  }

  /**
   * The tags the targets' and escalations' filters match: the gateway's tool's own, or an MCP tool's as
   * the approver rules see them (from the run's pinned list, which only the approval record names).
   */
  private async toolTagsOf(event: TStoredApprovalEvent): Promise<readonly string[]> {
    const { runtime } = this.context;
    const own = runtime.gateway.catalogue.get(event.toolName);
    if (own !== undefined) return own.tags ?? [];
    if (mcpServerOfToolName(runtime.gateway.settings.mcpServers, event.toolName) === undefined) return [];
    const approval = await runtime.approvals.get(event.approvalId);
    const tool = await ruleToolOfApproval(runtime, {
      toolName: event.toolName,
      ...(approval?.toolListHash !== undefined ? { toolListHash: approval.toolListHash } : {}),
    });
    return tool.tags ?? [];
  }

  private async scheduleReminders(
    approvalId: string,
    requestedAt: number,
    expiresAt: number,
    toolName: string,
    toolTags: readonly string[],
  ): Promise<void> {
    const { runtime, settings } = this.context;
    const now = runtime.now();
    const reminders: { name: string; data: TReminderJob; opts: JobsOptions }[] = [];
    if (settings.expiringSoonMs !== undefined && expiresAt > now) {
      const jobId = `expiring-${approvalId}`;
      reminders.push({
        name: notificationJobNames.expiring,
        data: { schemaVersion: 1, approvalId },
        opts: {
          ...this.retainedJobOptions(jobId),
          delay: Math.max(0, expiresAt - settings.expiringSoonMs - now),
        },
      });
    }
    escalationsOfTool(settings, toolName, toolTags).forEach((escalation, index) => {
      const escalateAt = requestedAt + escalation.afterMs;
      // An escalation due at or after the expiry would only announce an approval nobody can decide.
      if (escalateAt >= expiresAt) return;
      const jobId = `escalate-${index}-${approvalId}`;
      reminders.push({
        name: notificationJobNames.escalate,
        data: { schemaVersion: 1, approvalId, target: escalation.target, afterMs: escalation.afterMs },
        opts: { ...this.retainedJobOptions(jobId), delay: Math.max(0, escalateAt - now) },
      });
    });
    for (const reminder of reminders)
      reminder.opts = { ...reminder.opts, attempts: 5, backoff: { type: "exponential", delay: 1_000 } };
    if (reminders.length > 0) await runtime.queues.notifications.addBulk(reminders);
  }

  private retainedJobOptions(jobId: string): JobsOptions {
    const ageSeconds = Math.ceil(this.context.runtime.options.retentionMs / 1000);
    return { jobId, removeOnComplete: { age: ageSeconds }, removeOnFail: { age: ageSeconds } };
  }
}

async function ensureGroup(redis: ITollgateRedis, key: string): Promise<void> {
  try {
    await redis.xgroup("CREATE", key, notificationsGroup, "$", "MKSTREAM");
  } catch (error) {
    if (!(error instanceof Error && error.message.startsWith("BUSYGROUP"))) throw error;
  }
}

function isMissingGroup(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("NOGROUP");
}
