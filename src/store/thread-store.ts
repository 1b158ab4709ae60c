import type { TChatMessage } from "../contracts/index.js";
import { chatMessageSchema } from "../engine/index.js";
import type { IKeys } from "./keys.js";
import type { ITollgateRedis } from "./redis-client.js";

/**
 * A thread's history and the queue of its runs. Runs of one thread execute one after the other, in
 * submission order: a run starts only at the head of its thread's list.
 */
export class ThreadStore {
  constructor(
    private readonly redis: ITollgateRedis,
    private readonly keys: IKeys,
    private readonly options: { maxHistoryMessages: number; threadRetentionMs: number },
  ) {}

  /** The thread's history; reading it counts as a use, so its retention starts again. */
  async history(threadId: string): Promise<TChatMessage[]> {
    const key = this.keys.threadMessages(threadId);
    const replies = await this.redis
      .multi()
      .lrange(key, -this.options.maxHistoryMessages, -1)
      .pexpire(key, this.options.threadRetentionMs)
      .pexpire(this.keys.threadRuns(threadId), this.options.threadRetentionMs)
      .pexpire(this.keys.threadRunIds(threadId), this.options.threadRetentionMs)
      .exec();
    const [readError, raw] = (replies?.[0] ?? [null, []]) as [Error | null, string[]];
    if (readError) throw readError;
    const messages = raw.map((json) => chatMessageSchema.parse(JSON.parse(json)) as TChatMessage);
    // A trimmed history must not start inside a step: tool messages need the assistant call before them.
    const firstUser = messages.findIndex((message) => message.role === "user");
    return firstUser <= 0 ? messages : messages.slice(firstUser);
  }

  /**
   * A finished run leaves its thread's queue; its messages join the history exactly once (a retried finish
   * finds the run gone and appends nothing). Returns the id of the run that may start next.
   */
  async finishRun(threadId: string, runId: string, messages: TChatMessage[]): Promise<string | undefined> {
    const next = await this.redis.tgFinishThreadRun(
      this.keys.threadRuns(threadId),
      this.keys.threadMessages(threadId),
      this.keys.activeRuns(),
      runId,
      String(this.options.maxHistoryMessages),
      String(this.options.threadRetentionMs),
      ...messages.map((message) => JSON.stringify(message)),
    );
    return next ?? undefined;
  }

  /**
   * Deletes the thread's history and lists, unless a run of it is queued or running (`force` deletes
   * anyway: the caller cancelled them first), then the keys of every run it had. Returns the number of
   * runs still on the thread when it refused, else 0.
   */
  async delete(threadId: string, force: boolean): Promise<{ refusedWithRuns: number; runIds: string[] }> {
    const [waiting, ...runIds] = await this.redis.tgDeleteThread(
      this.keys.threadRuns(threadId),
      this.keys.threadMessages(threadId),
      this.keys.threadRunIds(threadId),
      force ? "1" : "",
    );
    if (waiting > 0 && !force) return { refusedWithRuns: waiting, runIds: [] };
    const keys = runIds.flatMap((runId) => [
      this.keys.run(runId),
      this.keys.runEvents(runId),
      this.keys.runCancel(runId),
      this.keys.runOutputs(runId),
    ]);
    const deletion = this.redis.multi().unlink(this.keys.threadTenant(threadId), ...keys);
    if (runIds.length > 0) deletion.zrem(this.keys.activeRuns(), ...runIds);
    await deletion.exec();
    return { refusedWithRuns: 0, runIds };
  }

  /** The tenant the thread belongs to (that of its first run), if it is known. */
  async tenantOf(threadId: string): Promise<string | undefined> {
    return (await this.redis.get(this.keys.threadTenant(threadId))) ?? undefined;
  }

  /** The run at the head of the thread: the one allowed to execute now. */
  async headRun(threadId: string): Promise<string | undefined> {
    return (await this.redis.lindex(this.keys.threadRuns(threadId), 0)) ?? undefined;
  }
}
