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
    const key = this.keys.notificationOrder(target, approvalId);
    for (;;) {
      const [head] = await this.redis.zrange(key, "0", "0");
      if (head === undefined || head === jobId) return true;
      const job = await this.queue.getJob(head);
      const state = job ? await job.getState() : "unknown";
      if (state !== "completed" && state !== "failed" && state !== "unknown") return false;
      await this.redis.zrem(key, head);
    }
  }

  /** Settles a delivery and wakes the next one, which may be waiting in the delayed set. */
  async settle(target: string, approvalId: string, jobId: string): Promise<void> {
    const key = this.keys.notificationOrder(target, approvalId);
    await this.redis.zrem(key, jobId);
    const [next] = await this.redis.zrange(key, "0", "0");
    if (next === undefined) return;
    const job = await this.queue.getJob(next);
    if (job && (await job.isDelayed())) await job.promote().catch(() => undefined);
  }
}
