import type { Redis } from "ioredis";
import type { IKeys } from "./keys.js";
import type { IRunEvent, IRunEventInput } from "./run-events.js";

type TStreamEntry = [id: string, fields: string[]];

/** Reads a run's event stream: a page at once, or follows it as events arrive. */
export class EventStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: IKeys,
  ) {}

  /** Events after `afterId` (exclusive; "0" for all), oldest first. */
  async readAfter(runId: string, afterId = "0", count = 500): Promise<IRunEvent[]> {
    const entries = (await this.redis.xrange(
      this.keys.runEvents(runId),
      afterId === "0" ? "-" : `(${afterId}`,
      "+",
      "COUNT",
      count,
    )) as TStreamEntry[];
    return entries.map((entry) => toEvent(runId, entry));
  }

  /**
   * Follows the stream from `afterId`, blocking on a connection of its own (`blockingRedis`: a blocking
   * read would stall every other command on a shared one), until the run's last event or `signal`.
   */
  async *follow(
    blockingRedis: Redis,
    runId: string,
    options: { afterId?: string; signal?: AbortSignal; blockMs?: number } = {},
  ): AsyncGenerator<IRunEvent> {
    let lastId = options.afterId ?? "0";
    const key = this.keys.runEvents(runId);
    while (!options.signal?.aborted) {
      const reply = (await blockingRedis.xread(
        "COUNT",
        100,
        "BLOCK",
        options.blockMs ?? 1000,
        "STREAMS",
        key,
        lastId,
      )) as [string, TStreamEntry[]][] | null;
      for (const [, entries] of reply ?? []) {
        for (const entry of entries) {
          const event = toEvent(runId, entry);
          lastId = event.id;
          yield event;
          if (event.type === "run-finished") return;
        }
      }
    }
  }
}

function toEvent(runId: string, [id, fields]: TStreamEntry): IRunEvent {
  const index = fields.indexOf("event");
  const parsed = JSON.parse(fields[index + 1] ?? "{}") as IRunEventInput & { at?: number };
  return { id, runId, type: parsed.type, data: { ...parsed.data, at: parsed.at } } as IRunEvent;
}
