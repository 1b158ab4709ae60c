import { isTerminal } from "../engine/index.js";
import { TollgateError } from "../errors/index.js";
import type { EventFollowers } from "../runtime/event-followers.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import { compareStreamIds, type IRunEvent, parseStreamId } from "../store/index.js";

/**
 * A finished run's stream is read a page at a time, each page about this many bytes: the page is what a
 * replay holds while its reader (an SSE client) is slow, so it is bounded in bytes, not only in events
 * (500 events of a few KB each were megabytes per stream). Each page's count follows the sizes of the
 * events read so far.
 */
const replayPageBytes = 64 * 1024;
const replayPageMaxEvents = 500;
const replayFirstPageEvents = 100;

export interface IRunEventsOptions {
  /** Only events after this stream id; "0" (the default) for all. */
  afterId?: string;
  /** Ends the events early (a client that went away). */
  signal?: AbortSignal;
}

/**
 * The one reader of a run's events, for `GatewayClient.events` and the SSE route alike. Checks what can
 * be refused before any event is read: a malformed or out-of-range `afterId` (TG_BAD_REQUEST), an
 * unknown run (TG_RUN_NOT_FOUND). A finished run is paged through without blocking (a blocking read
 * after its last event would wait forever); a live one is followed on the client's shared followers.
 */
export async function openRunEvents(
  runtime: ITollgateRuntime,
  followers: EventFollowers,
  runId: string,
  options: IRunEventsOptions = {},
): Promise<AsyncGenerator<IRunEvent>> {
  const requestedAfter = options.afterId ?? "0";
  if (parseStreamId(requestedAfter) === undefined) {
    throw new TollgateError(
      "TG_BAD_REQUEST",
      "The event id to resume after is not a stream id (two unsigned 64-bit parts, e.g. 1700000000000-0).",
      { afterId: requestedAfter.slice(0, 64) },
    );
  }
  const signal = options.signal ?? new AbortController().signal;
  await runtime.ready();
  const stored = await runtime.runs.load(runId);
  if (!stored) throw new TollgateError("TG_RUN_NOT_FOUND", `No run has id ${runId}.`, { runId });
  if (isTerminal(stored.state)) return replayFinished(runtime, runId, requestedAfter, signal);
  // An id past the run's last event (a forged or foreign id, a clock ahead) would skip `run-finished`
  // and leave the stream open forever: follow from the last event instead.
  const lastId = await runtime.events.lastEventId(runId);
  const afterId =
    lastId !== undefined && compareStreamIds(requestedAfter, lastId) > 0 ? lastId : requestedAfter;
  return followers.follow(runId, afterId, signal);
}

async function* replayFinished(
  runtime: ITollgateRuntime,
  runId: string,
  afterId: string,
  signal: AbortSignal,
): AsyncGenerator<IRunEvent> {
  let lastId = afterId;
  let count = replayFirstPageEvents;
  while (!signal.aborted) {
    const { events, bytes } = await runtime.events.readPage(runId, lastId, count);
    const full = events.length === count;
    if (events.length > 0) {
      const perEvent = Math.max(1, bytes / events.length);
      count = Math.min(replayPageMaxEvents, Math.max(1, Math.floor(replayPageBytes / perEvent)));
    }
    // Taken out as they go, so that a reader stalled mid-page holds only what it has not had yet.
    for (let event = events.shift(); event !== undefined; event = events.shift()) {
      yield event;
      if (event.type === "run-finished") return;
      lastId = event.id;
    }
    if (!full) return;
  }
}
