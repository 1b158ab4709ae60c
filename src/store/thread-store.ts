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
    private readonly options: { maxHistoryMessages: number },
  ) {}

  async history(threadId: string): Promise<TChatMessage[]> {
    const raw = await this.redis.lrange(
      this.keys.threadMessages(threadId),
      -this.options.maxHistoryMessages,
      -1,
    );
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
      runId,
      String(this.options.maxHistoryMessages),
      ...messages.map((message) => JSON.stringify(message)),
    );
    return next ?? undefined;
  }

  /** The run at the head of the thread: the one allowed to execute now. */
  async headRun(threadId: string): Promise<string | undefined> {
    return (await this.redis.lindex(this.keys.threadRuns(threadId), 0)) ?? undefined;
  }
}
