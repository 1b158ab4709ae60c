import type { IKeys, ITollgateRedis } from "../store/index.js";

/** Where a posted message is, as `chat.postMessage` answered: what `chat.update` needs. */
export interface ISlackMessageRef {
  channel: string;
  ts: string;
}

/** The message each Slack target posted for each approval, under the approval's partition prefix. */
export class SlackMessageRefs {
  constructor(
    private readonly redis: ITollgateRedis,
    private readonly keys: IKeys,
  ) {}

  async get(target: string, approvalId: string): Promise<ISlackMessageRef | undefined> {
    const [channel, ts] = await this.redis.hmget(this.keys.slackMessage(target, approvalId), "channel", "ts");
    return channel && ts ? { channel, ts } : undefined;
  }

  async set(target: string, approvalId: string, ref: ISlackMessageRef, ttlMs: number): Promise<void> {
    const key = this.keys.slackMessage(target, approvalId);
    await this.redis.multi().hset(key, "channel", ref.channel, "ts", ref.ts).pexpire(key, ttlMs).exec();
  }
}
