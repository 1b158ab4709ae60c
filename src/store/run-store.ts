import { responseOf, runStateSchema, type TRunState } from "../engine/index.js";
import { TollgateError, toFieldIssues } from "../errors/index.js";
import type { IKeys } from "./keys.js";
import type { ITollgateRedis } from "./redis-client.js";
import type { IRunEventInput } from "./run-events.js";

export interface IStoredRun {
  state: TRunState;
  /** Bumped by every save; a save from an older revision is refused. */
  revision: number;
}

export interface IRunStoreOptions {
  /** How long a finished run's state and events are kept. */
  retentionMs: number;
  /** Events kept per run (the stream is trimmed to about this many). */
  eventsMaxLength: number;
  now: () => number;
}

/** Run state in Redis: validated on write and read, saved with a revision check. */
export class RunStore {
  constructor(
    private readonly redis: ITollgateRedis,
    private readonly keys: IKeys,
    private readonly options: IRunStoreOptions,
  ) {}

  /** Creates the run, queues it on its thread and records `run-queued`; returns the stored one on a retry. */
  async create(state: TRunState, event: IRunEventInput): Promise<{ created: boolean; state: TRunState }> {
    const json = serialize(state);
    const existing = await this.redis.tgCreateRun(
      this.keys.run(state.runId),
      this.keys.threadRuns(state.threadId),
      this.keys.runEvents(state.runId),
      json,
      state.runId,
      this.eventJson(event),
      String(this.options.eventsMaxLength),
    );
    if (existing === null) return { created: true, state };
    return { created: false, state: deserialize(existing, state.runId) };
  }

  async load(runId: string): Promise<IStoredRun | undefined> {
    const [revision, json] = await this.redis.hmget(this.keys.run(runId), "rev", "state");
    if (json === null || json === undefined) return undefined;
    return { state: deserialize(json, runId), revision: Number(revision) };
  }

  /**
   * Saves when nobody saved since `stored` was read, with its events in the same atomic step. The save
   * that finishes the run adds `run-finished` with the response and starts the retention TTL.
   */
  async save(stored: IStoredRun, next: TRunState, events: IRunEventInput[] = []): Promise<IStoredRun> {
    const finished = next.phase === "finished";
    if (finished && stored.state.phase !== "finished") {
      events = [
        ...events,
        { type: "run-finished", data: { status: next.status, response: responseOf(next) } },
      ];
    }
    const revision = await this.redis.tgSaveRun(
      this.keys.run(next.runId),
      this.keys.runEvents(next.runId),
      String(stored.revision),
      serialize(next),
      finished ? String(this.options.retentionMs) : "",
      String(this.options.eventsMaxLength),
      finished ? this.keys.finishedChannel() : "",
      next.runId,
      ...events.map((event) => this.eventJson(event)),
    );
    if (revision < 0) {
      throw new TollgateError(
        "TG_STATE_CORRUPT",
        `Run ${next.runId} was saved by another worker since this one read it; this activation stops.`,
        { runId: next.runId },
      );
    }
    return { state: next, revision };
  }

  /**
   * Appends an event that comes with no state change of the run (a cancellation asked for, a human's
   * decision), in the same format and under the same length cap as the events saved with the state.
   */
  async appendEvent(runId: string, event: IRunEventInput): Promise<void> {
    await this.redis.xadd(
      this.keys.runEvents(runId),
      "MAXLEN",
      "~",
      this.options.eventsMaxLength,
      "*",
      "event",
      this.eventJson(event),
    );
  }

  private eventJson(event: IRunEventInput): string {
    return JSON.stringify({ type: event.type, data: event.data, at: this.options.now() });
  }
}

function serialize(state: TRunState): string {
  const checked = runStateSchema.safeParse(state);
  if (!checked.success) {
    throw new TollgateError(
      "TG_STATE_CORRUPT",
      `Refusing to store an invalid state for run ${state.runId}.`,
      {
        issues: toFieldIssues(checked.error),
      },
    );
  }
  return JSON.stringify(checked.data);
}

function deserialize(json: string, runId: string): TRunState {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    throw new TollgateError(
      "TG_STATE_CORRUPT",
      `The stored state of run ${runId} is not JSON.`,
      { runId },
      { cause: error },
    );
  }
  const checked = runStateSchema.safeParse(raw);
  if (!checked.success) {
    throw new TollgateError("TG_STATE_CORRUPT", `The stored state of run ${runId} failed validation.`, {
      runId,
      issues: toFieldIssues(checked.error),
    });
  }
  return checked.data;
}
