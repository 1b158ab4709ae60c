import type { Queue } from "bullmq";
import type { IKeys, ITollgateRedis } from "../store/index.js";

/**
 * Keeps the deliveries of one approval to one target in event order (requested before decided), even
 * while an earlier one is being retried: a delivery waits (delayed, holding no worker) until every earlier
 * one has settled, delivered or given up, and the one that settles wakes the next.
 */
export class DeliveryOrder {
  constructor(
    private readonly redis: ITollgateRedis,
    private readonly keys: IKeys,
    private readonly queue: Queue,
    private readonly retentionMs: number,
  ) {}

  /** Records a delivery before its job exists (a re-add of the same id changes nothing). */
  async enqueue(target: string, approvalId: string, jobId: string, order: number): Promise<void> {
    const key = this.keys.notificationOrder(target, approvalId);
    await this.redis.multi().zadd(key, "NX", order, jobId).pexpire(key, this.retentionMs).exec();
  }

  /**
   * Whether this delivery is the oldest unsettled one. An earlier entry whose job is gone, completed or
   * failed (its worker died before it could settle it) is dropped here rather than blocking the rest.
   */
  async isNext(target: string, approvalId: string, jobId: string): Promise<boolean> {
    const head = await this.unsettledHead(this.keys.notificationOrder(target, approvalId), {
      stopAt: jobId,
      dropMissing: true,
    });
    return head === undefined || head === jobId;
  }

  /** Settles a delivery and wakes the next one, which may be waiting in the delayed set. */
  async settle(target: string, approvalId: string, jobId: string): Promise<void> {
    const key = this.keys.notificationOrder(target, approvalId);
    await this.redis.zrem(key, jobId);
    // A missing job here may be a later delivery whose job is being added this moment: kept.
    const next = await this.unsettledHead(key, { dropMissing: false });
    if (next === undefined) return;
    const job = await this.queue.getJob(next);
    if (job && (await job.isDelayed())) await job.promote().catch(() => undefined);
  }

  /**
   * The oldest delivery still to settle, dropping settled ones on the way: an event dispatched again (a
   * claimed entry whose deliveries already went out) puts its finished delivery back at the head. A
   * delivery whose job is missing is dropped only with `dropMissing`: ahead of a delivery being processed
   * it is one whose job will never come (the earlier events of an approval are dispatched before its
   * later ones, see earlier-pending-events.ts).
   */
  private async unsettledHead(
    key: string,
    options: { stopAt?: string; dropMissing: boolean },
  ): Promise<string | undefined> {
    for (;;) {
      const [head] = await this.redis.zrange(key, "0", "0");
      if (head === undefined || head === options.stopAt) return head;
      const job = await this.queue.getJob(head);
      const state = job ? await job.getState() : "unknown";
      const settled =
        state === "completed" || state === "failed" || (state === "unknown" && options.dropMissing);
      if (!settled) return head;
      await this.redis.zrem(key, head);
    }
  }
}
