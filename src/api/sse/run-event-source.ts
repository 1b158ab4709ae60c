import { isTerminal } from "../../engine/index.js";
import type { ITollgateRuntime } from "../../runtime/runtime.js";
import type { IRunEvent } from "../../store/index.js";

/** A page of a finished run's stream at once: enough for most runs, and bounded. */
const replayPageSize = 500;

/**
 * The events of a run after `afterId`, up to its `run-finished` event, until `signal` aborts.
 *
 * A finished run is read page by page without blocking (a blocking read after its last event would
 * wait forever). A live one is followed on a connection of its own, named so that operators see SSE
 * followers in CLIENT LIST; an abort disconnects it at once instead of waiting out a blocking read.
 */
export async function* runEventSource(
  runtime: ITollgateRuntime,
  runId: string,
  options: { afterId: string; finished: boolean; signal: AbortSignal },
): AsyncGenerator<IRunEvent> {
  if (options.finished) {
    yield* replayFinished(runtime, runId, options.afterId, options.signal);
    return;
  }
  const connection = runtime.duplicateConnection();
  const disconnect = () => connection.disconnect();
  options.signal.addEventListener("abort", disconnect, { once: true });
  try {
    await connection.client("SETNAME", followerConnectionName(runId));
    yield* runtime.events.follow(connection, runId, {
      afterId: options.afterId,
      signal: options.signal,
      blockMs: 5_000,
    });
  } catch (error) {
    // The disconnect above rejects the pending read: that is the end of the stream, not a failure.
    if (!options.signal.aborted) throw error;
  } finally {
    options.signal.removeEventListener("abort", disconnect);
    connection.disconnect();
  }
}

async function* replayFinished(
  runtime: ITollgateRuntime,
  runId: string,
  afterId: string,
  signal: AbortSignal,
): AsyncGenerator<IRunEvent> {
  let lastId = afterId;
  while (!signal.aborted) {
    const page = await runtime.events.readAfter(runId, lastId, replayPageSize);
    for (const event of page) {
      yield event;
      if (event.type === "run-finished") return;
      lastId = event.id;
    }
    if (page.length < replayPageSize) return;
  }
}

/** CLIENT SETNAME accepts no spaces or control characters; run ids have none, but be safe. */
export function followerConnectionName(runId: string): string {
  return `tollgate-api-sse:${runId.replace(/[^A-Za-z0-9_.:-]/g, "_")}`;
}

/** Whether the run has finished, so its stream is read without blocking; undefined when it does not exist. */
export async function runIsFinished(runtime: ITollgateRuntime, runId: string): Promise<boolean | undefined> {
  // As GatewayClient does: the client's connection queues nothing while it (re)connects.
  await runtime.ready();
  const stored = await runtime.runs.load(runId);
  return stored ? isTerminal(stored.state) : undefined;
}
