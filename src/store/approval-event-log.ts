import {
  approvalEventSchema,
  type TApprovalDecision,
  type TApprovalEvent,
  type TApprovalEventType,
  type TStoredApprovalEvent,
} from "../contracts/index.js";
import type { TStreamEntry } from "./event-store.js";
import type { IKeys } from "./keys.js";
import type { ITollgateRedis } from "./redis-client.js";

/**
 * The stream of approval events (`keys.approvalEvents()`): the store's Lua scripts write the lifecycle
 * events with the change itself; `append` is for the types other features add (a quorum's partial vote,
 * an expiry warning, an escalation), in the same format. Followers read it through `EventFollowers`.
 */
export class ApprovalEventLog {
  constructor(
    private readonly redis: ITollgateRedis,
    private readonly keys: IKeys,
    private readonly options: { maxLength: number },
  ) {}

  /** Appends one event; returns its stream id. */
  async append(event: TApprovalEvent): Promise<string> {
    const id = await this.redis.xadd(
      this.keys.approvalEvents(),
      "MAXLEN",
      "~",
      this.options.maxLength,
      "*",
      "event",
      approvalEventJson(event),
    );
    return id as string;
  }

  /** Events after `afterId` (exclusive; "0" for all kept), oldest first. */
  async readAfter(afterId = "0", count = 500): Promise<TStoredApprovalEvent[]> {
    const entries = (await this.redis.xrange(
      this.keys.approvalEvents(),
      afterId === "0" ? "-" : `(${afterId}`,
      "+",
      "COUNT",
      count,
    )) as TStreamEntry[];
    return entries.map(toStoredApprovalEvent);
  }

  /** The id of the newest event; "0-0" when the stream is empty (a follower then reads from the start). */
  async lastId(): Promise<string> {
    const entries = (await this.redis.xrevrange(this.keys.approvalEvents(), "+", "-", "COUNT", 1)) as
      | TStreamEntry[]
      | undefined;
    return entries?.[0]?.[0] ?? "0-0";
  }
}

/** The entry's one field, validated on write so that no reader meets a malformed event. */
export function approvalEventJson(event: TApprovalEvent): string {
  return JSON.stringify(approvalEventSchema.parse(event));
}

/** The event type that announces a decision of this status. */
export function approvalEventTypeOf(status: TApprovalDecision): TApprovalEventType {
  if (status === "expired") return "approval-expired";
  if (status === "cancelled") return "approval-cancelled";
  return "approval-decided";
}

/** One stream entry as the event it holds. */
export function toStoredApprovalEvent([id, fields]: TStreamEntry): TStoredApprovalEvent {
  const index = fields.indexOf("event");
  return { ...approvalEventSchema.parse(JSON.parse(fields[index + 1] ?? "{}")), id };
}
