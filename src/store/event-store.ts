import type { Redis } from "ioredis";
import type { IKeys } from "./keys.js";
import type { IRunEvent, IRunEventInput } from "./run-events.js";

export type TStreamEntry = [id: string, fields: string[]];

/** Reads a run's event stream a page at once; `EventFollowers` follows live ones. */
export class EventStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: IKeys,
  ) {}

  /** Events after `afterId` (exclusive; "0" for all), oldest first. */
  async readAfter(runId: string, afterId = "0", count = 500): Promise<IRunEvent[]> {
    return (await this.readPage(runId, afterId, count)).events;
  }

  /** As readAfter, with the size of the entries read (ids and fields, as they came). */
  async readPage(
    runId: string,
    afterId: string,
    count: number,
  ): Promise<{ events: IRunEvent[]; bytes: number }> {
    const entries = (await this.redis.xrange(
      this.keys.runEvents(runId),
      afterId === "0" ? "-" : `(${afterId}`,
      "+",
      "COUNT",
      count,
    )) as TStreamEntry[];
    return { events: entries.map((entry) => toRunEvent(runId, entry)), bytes: streamEntriesBytes(entries) };
  }

  /** The id of the run's latest event; undefined when its stream is empty or gone. */
  async lastEventId(runId: string): Promise<string | undefined> {
    const entries = (await this.redis.xrevrange(this.keys.runEvents(runId), "+", "-", "COUNT", 1)) as
      | TStreamEntry[]
      | undefined;
    return entries?.[0]?.[0];
  }
}

/** One stream entry as the event it holds. */
export function toRunEvent(runId: string, [id, fields]: TStreamEntry): IRunEvent {
  const index = fields.indexOf("event");
  const parsed = JSON.parse(fields[index + 1] ?? "{}") as IRunEventInput & { at?: number };
  return { id, runId, type: parsed.type, data: { ...parsed.data, at: parsed.at } } as IRunEvent;
}

/** The size of stream entries as they came: their ids and fields' text (characters, near enough bytes). */
export function streamEntriesBytes(entries: readonly TStreamEntry[]): number {
  let bytes = 0;
  for (const [id, fields] of entries) {
    bytes += id.length;
    for (const field of fields) bytes += field.length;
  }
  return bytes;
}
