import type { TApprovalEventType, TStoredApprovalEvent } from "../contracts/index.js";
import { TollgateError } from "../errors/index.js";
import type { EventFollowers } from "../runtime/event-followers.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import { compareStreamIds, parseStreamId, toStoredApprovalEvent } from "../store/index.js";
import { mergeGenerators } from "./merge-generators.js";

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
  partitions: readonly ITollgateRuntime[],
  followersOf: (runtime: ITollgateRuntime) => EventFollowers,
  options: IApprovalEventsOptions = {},
): Promise<AsyncGenerator<TStoredApprovalEvent>> {
  const requested = requestedPositions(options.afterId, partitions.length);
  const outer = options.signal ?? new AbortController().signal;
  if (partitions.length === 1) {
    const runtime = partitions[0] as ITollgateRuntime;
    return followPartition(runtime, followersOf(runtime), requested?.[0], options, outer);
  }
  // Several partitions: one follower per partition's log, merged. An event's id is the position reached
  // in every log ("<id of partition 0>,<id of partition 1>,…"), so resuming after it misses nothing.
  const inner = new AbortController();
  const abort = () => inner.abort();
  outer.addEventListener("abort", abort, { once: true });
  const positions: string[] = [];
  const sources = await Promise.all(
    partitions.map(async (runtime, index) => {
      const source = await followPartition(
        runtime,
        followersOf(runtime),
        requested?.[index],
        options,
        inner.signal,
      );
      positions[index] = source.startedAfter;
      return source;
    }),
  );
  return (async function* () {
    try {
      for await (const { source, value } of mergeGenerators(sources)) {
        positions[source] = value.id;
        yield { ...value, id: positions.join(",") };
      }
    } finally {
      outer.removeEventListener("abort", abort);
      inner.abort();
    }
  })();
}

/**
 * The position to resume after in each partition's log, from `afterId`: one stream id per partition,
 * comma-separated (a single id when there is one partition; "0" alone starts every log). Malformed ids are
 * refused (TG_BAD_REQUEST); a list made for another number of partitions (the layout changed since)
 * follows from now.
 */
function requestedPositions(afterId: string | undefined, partitionCount: number): string[] | undefined {
  if (afterId === undefined) return undefined;
  const ids = afterId.split(",");
  if (ids.length > 64 || ids.some((id) => parseStreamId(id) === undefined)) {
    throw new TollgateError(
      "TG_BAD_REQUEST",
      "The event id to resume after is not a stream id (two unsigned 64-bit parts, e.g. 1700000000000-0), " +
        "or with partitions one per partition, comma-separated.",
      { afterId: afterId.slice(0, 64) },
    );
  }
  if (ids.length === partitionCount) return ids;
  // "0", every event still kept, is the start of every partition's log.
  if (ids.length === 1 && compareStreamIds(ids[0]!, "0-0") === 0) return Array(partitionCount).fill("0");
  return undefined;
}

async function followPartition(
  runtime: ITollgateRuntime,
  followers: EventFollowers,
  requestedAfter: string | undefined,
  options: IApprovalEventsOptions,
  signal: AbortSignal,
): Promise<AsyncGenerator<TStoredApprovalEvent> & { startedAfter: string }> {
  await runtime.ready();
  const lastId = await runtime.approvalEvents.lastId();
  const afterId =
    requestedAfter === undefined || compareStreamIds(requestedAfter, lastId) > 0 ? lastId : requestedAfter;
  const { tenant, types } = options;
  const wanted = types ? new Set<string>(types) : undefined;
  const events = followers.followStream(
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
    signal,
  );
  return Object.assign(events, { startedAfter: afterId });
}
