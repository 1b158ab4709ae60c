import type { TApprovalEventType, TStoredApprovalEvent } from "../contracts/index.js";
import { TollgateError } from "../errors/index.js";
import type { EventFollowers } from "../runtime/event-followers.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import { compareStreamIds, parseStreamId, toStoredApprovalEvent } from "../store/index.js";

export interface IApprovalEventsOptions {
  /**
   * Only events after this stream id ("0": every event still kept). Absent: only events appended from
   * now on (a live inbox lists first, then follows).
   */
  afterId?: string;
  /** Only this tenant's approvals; absent: every tenant's. */
  tenant?: string;
  /** Only these types; absent: all. */
  types?: readonly TApprovalEventType[];
  /** Ends the events (a client that went away); without it they never end. */
  signal?: AbortSignal;
}

/**
 * The one reader of the approval events, for `GatewayClient.approvals.events` and the SSE route alike.
 * A malformed `afterId` is refused before any read (TG_BAD_REQUEST); one past the newest event (a
 * forged id, a clock ahead) follows from the newest, so that no event is skipped until then. The stream
 * never ends by itself: it is followed on the client's shared followers until the signal aborts.
 */
export async function openApprovalEvents(
  runtime: ITollgateRuntime,
  followers: EventFollowers,
  options: IApprovalEventsOptions = {},
): Promise<AsyncGenerator<TStoredApprovalEvent>> {
  const requestedAfter = options.afterId;
  if (requestedAfter !== undefined && parseStreamId(requestedAfter) === undefined) {
    throw new TollgateError(
      "TG_BAD_REQUEST",
      "The event id to resume after is not a stream id (two unsigned 64-bit parts, e.g. 1700000000000-0).",
      { afterId: requestedAfter.slice(0, 64) },
    );
  }
  await runtime.ready();
  const lastId = await runtime.approvalEvents.lastId();
  const afterId =
    requestedAfter === undefined || compareStreamIds(requestedAfter, lastId) > 0 ? lastId : requestedAfter;
  const { tenant, types } = options;
  const wanted = types ? new Set<string>(types) : undefined;
  return followers.followStream(
    runtime.keys.approvalEvents(),
    afterId,
    {
      toEvent: (entry) => {
        const event = toStoredApprovalEvent(entry);
        if (tenant !== undefined && event.tenant !== tenant) return undefined;
        if (wanted !== undefined && !wanted.has(event.type)) return undefined;
        return event;
      },
      isLast: () => false,
    },
    options.signal ?? new AbortController().signal,
  );
}
