import { chatMessageSchema, defaultTenant, type TChatMessage, tenantOf } from "../contracts/index.js";
import type { IKeys, IThreadRef } from "./keys.js";
import type { ITollgateRedis } from "./redis-client.js";
import { threadIndexTtlMs } from "./run-index-times.js";

/** The thread a run belongs to: its id within the run's tenant. */
export function threadOfRun(run: { threadId: string; request: { tenant?: string | undefined } }): IThreadRef {
  return { tenant: tenantOf(run.request), threadId: run.threadId };
}

/**
 * A thread's history and the queue of its runs. Runs of one thread execute one after the other, in
 * submission order: a run starts only at the head of its thread's list.
 */
export class ThreadStore {
  constructor(
    private readonly redis: ITollgateRedis,
    private readonly keys: IKeys,
    private readonly options: { maxHistoryMessages: number; threadRetentionMs: number; retentionMs: number },
  ) {}

  /** The thread's history; reading it counts as a use, so its retention starts again. */
  async history(thread: IThreadRef): Promise<TChatMessage[]> {
    const key = this.keys.threadMessages(thread);
    const replies = await this.redis
      .multi()
      .lrange(key, -this.options.maxHistoryMessages, -1)
      .pexpire(key, this.options.threadRetentionMs)
      .pexpire(this.keys.threadRuns(thread), this.options.threadRetentionMs)
      .pexpire(
        this.keys.runIndex("thread", thread.tenant, thread.threadId),
        threadIndexTtlMs(this.options.retentionMs, this.options.threadRetentionMs),
      )
      // A thread stored by an earlier version keeps its runs' ids in this set (see deleteThreadScript).
      .pexpire(this.keys.legacyThreadRunIds(thread), this.options.threadRetentionMs)
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
  async finishRun(thread: IThreadRef, runId: string, messages: TChatMessage[]): Promise<string | undefined> {
    const next = await this.redis.tgFinishThreadRun(
      this.keys.threadRuns(thread),
      this.keys.threadMessages(thread),
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
  async delete(thread: IThreadRef, force: boolean): Promise<{ refusedWithRuns: number; runIds: string[] }> {
    const [waiting, ...runIds] = await this.redis.tgDeleteThread(
      this.keys.threadRuns(thread),
      this.keys.threadMessages(thread),
      this.keys.runIndex("thread", thread.tenant, thread.threadId),
      this.keys.legacyThreadRunIds(thread),
      force ? "1" : "",
    );
    if (waiting > 0 && !force) return { refusedWithRuns: waiting, runIds: [] };
    const keys = runIds.flatMap((runId) => [
      this.keys.run(runId),
      this.keys.runEvents(runId),
      this.keys.runCancel(runId),
      this.keys.runOutputs(runId),
    ]);
    // The script deleted the thread's own index (its runs); other indexes skip the deleted runs until trimmed.
    // The default tenant's thread has the unscoped keys: an owner key left from before scoping goes with it.
    const legacyOwner =
      thread.tenant === defaultTenant ? [this.keys.legacyThreadTenant(thread.threadId)] : [];
    if (legacyOwner.length === 0 && runIds.length === 0) return { refusedWithRuns: 0, runIds };
    const deletion = this.redis.multi().unlink(...legacyOwner, ...keys);
    if (runIds.length > 0) deletion.zrem(this.keys.activeRuns(), ...runIds);
    await deletion.exec();
    return { refusedWithRuns: 0, runIds };
  }

  /**
   * Whether the default tenant's thread `thread` is, in fact, another tenant's thread stored before thread
   * ids were scoped (its keys are the unscoped ones the default tenant's threads have now): such a thread
   * stays out of the default tenant's reach while its keys live. False for every other tenant.
   */
  async heldByAnotherTenant(thread: IThreadRef): Promise<boolean> {
    if (thread.tenant !== defaultTenant) return false;
    const [owner, kept] = await Promise.all([
      this.redis.get(this.keys.legacyThreadTenant(thread.threadId)),
      // The owner key never expired, the thread's keys did: once they are gone, so is the thread.
      this.redis.exists(
        this.keys.threadMessages(thread),
        this.keys.threadRuns(thread),
        this.keys.runIndex("thread", thread.tenant, thread.threadId),
        this.keys.legacyThreadRunIds(thread),
      ),
    ]);
    if (owner === null) return false;
    if (owner !== defaultTenant && kept > 0) return true;
    // The old thread is gone (or was the default tenant's): its owner key, kept forever, goes too.
    await this.redis.unlink(this.keys.legacyThreadTenant(thread.threadId));
    return false;
  }

  /** The run at the head of the thread: the one allowed to execute now. */
  async headRun(thread: IThreadRef): Promise<string | undefined> {
    return (await this.redis.lindex(this.keys.threadRuns(thread), 0)) ?? undefined;
  }
}
