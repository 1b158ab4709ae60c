import { createHash } from "node:crypto";
import {
  awaitedApprovalIdsOf,
  cancelReasonSchema,
  defaultTenant,
  type IGatewayResponse,
  type IThreadRelease,
  type IToolResultPart,
  readRunState,
  responseOf,
  type TCancelReason,
  type TRunEventInput,
  type TRunState,
  tenantOf,
} from "../contracts/index.js";
import { TollgateError } from "../errors/index.js";
import type { IKeys } from "./keys.js";
import { checkpointInTransactionScript, createRunScript } from "./lua-scripts.js";
import type { ITollgateRedis } from "./redis-client.js";
import { eventJson } from "./run-events.js";
import { runIndexTimes, threadIndexTtlMs } from "./run-index-times.js";
import { threadOfRun } from "./thread-store.js";

/**
 * A MULTI that a run's creation joins: `runCommand` runs a script defined (ioredis `defineCommand`) on
 * the connection `defineCreateRunCommand` was given, as BullMQ's `Job#addJob` runs its own.
 */
export interface IRunCreateTransaction {
  runCommand(name: string, args: Array<string | Buffer>): unknown;
}

const createRunCommand = "tgCreateRunInTransaction";

/** Defines the creation script where `IRunCreateTransaction#runCommand` finds it; once. */
export function defineCreateRunCommand(connection: {
  defineCommand(name: string, definition: { numberOfKeys: number; lua: string }): void;
}): void {
  if (typeof (connection as Record<string, unknown>)[createRunCommand] === "function") return;
  connection.defineCommand(createRunCommand, { numberOfKeys: 12, lua: createRunScript });
}

const checkpointCommand = "tgCheckpointInTransaction";

/** Defines the checkpoint's script for a transaction with tool jobs (see `saveIn`); once. */
export function defineCheckpointCommand(connection: {
  defineCommand(name: string, definition: { numberOfKeys: number; lua: string }): void;
}): void {
  if (typeof (connection as Record<string, unknown>)[checkpointCommand] === "function") return;
  connection.defineCommand(checkpointCommand, { numberOfKeys: 4, lua: checkpointInTransactionScript });
}

/** A parent job's hash and where a transaction moves it while its children may not be added. */
export interface IParentFence {
  parentKey: string;
  fencedKey: string;
}

export interface IStoredRun {
  state: TRunState;
  /** Bumped by every save; a save from an older revision is refused. */
  revision: number;
  /** Set once someone asked for the run's cancellation (read with the state, in the same round trip). */
  cancelReason?: TCancelReason;
  /**
   * The state came with the run job (as its creation stored it), not from a read: the first save checks
   * that nothing happened to the run since (saveStartedRunScript), and a finish before it is refused.
   */
  carried?: ICarriedState;
  /** The run job's payload still carries the creation's state: the next save drops it (same script). */
  jobPayload?: IRunJobPayloadSwap;
}

/** What the first save of a state carried by the run job checks. */
export interface ICarriedState {
  /** SHA-1 of the carried state's JSON: the stored state must be that very one. */
  sha1: string;
}

/** A run job's key and the payload it keeps once it no longer carries the state. */
export interface IRunJobPayloadSwap {
  key: string;
  slimData: string;
}

export interface IRunStoreOptions {
  /** How long a finished run's state and events are kept. */
  retentionMs: number;
  /** Events kept per run (the stream is trimmed to about this many). */
  eventsMaxLength: number;
  /** Messages kept in a thread's history. */
  maxHistoryMessages: number;
  /** How long a thread's keys live after their last use. */
  threadRetentionMs: number;
  now: () => number;
}

/**
 * Run state in Redis, saved with a revision check; its events in the same atomic step; its cancel flag.
 * What is written was built by the engine from validated inputs, so it is not validated again on every
 * save; reads check the version and upgrade the previous one.
 */
export class RunStore {
  constructor(
    private readonly redis: ITollgateRedis,
    private readonly keys: IKeys,
    private readonly options: IRunStoreOptions,
  ) {}

  /**
   * Adds the run's creation to `transaction` (a MULTI), so that it commits
   * with whatever else the transaction holds (the run's jobs): the run unless it exists, queued on its
   * thread, with `run-queued` (then `moreEvents`: a resume's `run-resumed`). Read its reply with `created`.
   */
  createIn(
    transaction: IRunCreateTransaction,
    state: TRunState,
    event: TRunEventInput,
    stateJson: string = JSON.stringify(state),
    moreEvents: readonly TRunEventInput[] = [],
  ): void {
    const args = this.createArguments(state, event, stateJson);
    const at = this.options.now();
    for (const more of moreEvents) args.push(eventJson(more, at));
    transaction.runCommand(createRunCommand, args);
  }

  /** What a creation's reply says: created now (nil), or the stored run of an earlier request. */
  created(reply: string | null, state: TRunState): { created: boolean; state: TRunState } {
    if (reply === null) return { created: true, state };
    return { created: false, state: deserialize(reply, state.runId) };
  }

  private createArguments(
    state: TRunState,
    event: TRunEventInput,
    stateJson: string,
  ): Array<string | Buffer> {
    const thread = threadOfRun(state);
    const { request } = state;
    const tenant = tenantOf(request);
    const now = this.options.now();
    const index = runIndexTimes(this.options.retentionMs, now);
    return [
      this.keys.run(state.runId),
      this.keys.threadRuns(thread),
      this.keys.runEvents(state.runId),
      this.keys.activeRuns(),
      this.keys.threadMessages(thread),
      this.keys.runIndex("thread", tenant, state.threadId),
      this.keys.runIndex("all"),
      this.keys.runIndex("tenant", tenant),
      this.keys.runIndex("user", tenant, request.userContext.userId),
      // Without a creator the tenant's index stands in (a key must be named), and the script skips it.
      request.createdBy !== undefined
        ? this.keys.runIndex("created-by", tenant, request.createdBy)
        : this.keys.runIndex("tenant", tenant),
      this.keys.runIndex("unfinished", tenant),
      // As for the creator: the tenant's index stands in when no schedule created the run.
      request.scheduleId !== undefined
        ? this.keys.runIndex("schedule", tenant, request.scheduleId)
        : this.keys.runIndex("tenant", tenant),
      // As bytes, as every save sends the state (see stateBytes); the job carries the same JSON as text.
      Buffer.from(stateJson),
      state.runId,
      eventJson(event, now),
      String(this.options.eventsMaxLength),
      String(now),
      String(this.options.threadRetentionMs),
      String(state.createdAt),
      index.cutoff,
      index.ttlMs,
      request.createdBy !== undefined ? "1" : "0",
      request.scheduleId !== undefined ? "1" : "0",
      String(threadIndexTtlMs(this.options.retentionMs, this.options.threadRetentionMs)),
      // The default tenant's own index stands in for `all` (see runIndexesOfEveryTenant): about 120 bytes
      // of Redis a run less where runs have no tenant.
      tenant === defaultTenant ? "0" : "1",
    ];
  }

  /**
   * The state, its revision and the cancel flag, in one round trip: auto-pipelined, so both leave in the
   * write of whatever else this turn of the event loop sends (a resumed run's children, read beside it),
   * where an explicit pipeline is a write of its own. Reads, not MULTI: a full Redis refuses MULTI but
   * still serves reads.
   */
  async load(runId: string): Promise<IStoredRun | undefined> {
    const [fields, cancel] = await Promise.all([
      this.redis.hmget(this.keys.run(runId), "rev", "state"),
      this.redis.get(this.keys.runCancel(runId)),
    ]);
    const [revision, json] = fields;
    if (json === null || json === undefined) return undefined;
    const stored: IStoredRun = { state: deserialize(json, runId), revision: Number(revision) };
    if (cancel === "cancelled" || cancel === "timed_out") stored.cancelReason = cancel;
    return stored;
  }

  /**
   * A queued run as its job carries it (the creation's state JSON, returned by BullMQ's moveToActive with
   * the job): no read. Undefined when the carried state is not a queued run's (then read it).
   */
  carriedByJob(runId: string, stateJson: string, runJob: IRunJobPayloadSwap): IStoredRun | undefined {
    const state = deserialize(stateJson, runId);
    if (state.status !== "queued" || state.runId !== runId) return undefined;
    const sha1 = createHash("sha1").update(stateJson).digest("hex");
    return { state, revision: 1, carried: { sha1 }, jobPayload: runJob };
  }

  /**
   * The ids of the approvals the run may still await, from its state (awaitedApprovalIdsOf): its pending
   * approvals are among them. None for a run that is gone or whose state cannot be read.
   */
  async awaitedApprovalIds(runId: string): Promise<string[]> {
    const [state] = await this.states([runId]);
    return state ? awaitedApprovalIdsOf(state) : [];
  }

  /**
   * The states of these runs (auto-pipelined reads, one round trip): undefined for a run that is gone
   * (past its retention, its thread deleted) or whose state cannot be read, which a listing skips.
   */
  async states(runIds: string[]): Promise<Array<TRunState | undefined>> {
    const jsons = await Promise.all(runIds.map((runId) => this.redis.hget(this.keys.run(runId), "state")));
    return jsons.map((json, at) => {
      if (json === null) return undefined;
      try {
        return deserialize(json, runIds[at]!);
      } catch {
        return undefined;
      }
    });
  }

  /** Records on `runId` that `rerunId` re-ran it (kept with the run); false when the run is gone. */
  async linkRerun(runId: string, rerunId: string): Promise<boolean> {
    return (await this.redis.tgLinkRun(this.keys.run(runId), "reruns", rerunId)) === 1;
  }

  /** The runs that re-ran this one, oldest first. */
  async rerunsOf(runId: string): Promise<string[]> {
    const reruns = await this.redis.hget(this.keys.run(runId), "reruns");
    return reruns ? reruns.split(" ") : [];
  }

  /** Records on `runId` that `forkId` was forked from its call `callId`; false when the run is gone. */
  async linkFork(runId: string, forkId: string, callId: string): Promise<boolean> {
    return (await this.redis.tgLinkRun(this.keys.run(runId), "forks", `${forkId}@${callId}`)) === 1;
  }

  /** Records on `runId` that `resumeId` resumed it (kept with the run); false when the run is gone. */
  async linkResume(runId: string, resumeId: string): Promise<boolean> {
    return (await this.redis.tgLinkRun(this.keys.run(runId), "resumes", resumeId)) === 1;
  }

  /** The run that resumed this one, if one did (a run is resumed once: its resume's id derives from it). */
  async resumedBy(runId: string): Promise<string | undefined> {
    const resumes = await this.redis.hget(this.keys.run(runId), "resumes");
    return resumes ? resumes.split(" ")[0] : undefined;
  }

  /** The runs forked from this one and the call each started at, oldest first. */
  async forksOf(runId: string): Promise<Array<{ runId: string; callId: string }>> {
    const forks = await this.redis.hget(this.keys.run(runId), "forks");
    if (!forks) return [];
    return forks.split(" ").map((entry) => {
      const at = entry.indexOf("@");
      return { runId: entry.slice(0, at), callId: entry.slice(at + 1) };
    });
  }

  /**
   * Results with their outputs stored apart put back (one read, only when some are): what a fork takes
   * over from its original, whose `outputs` key it does not share.
   */
  async resultsWithOutputs<TPart extends IToolResultPart>(runId: string, parts: TPart[]): Promise<TPart[]> {
    const apart = parts.filter((part) => part.outputStoredApart);
    if (apart.length === 0) return parts;
    const values = await this.redis.hmget(this.keys.runOutputs(runId), ...apart.map((part) => part.callId));
    const outputs = new Map(apart.map((part, index) => [part.callId, values[index]]));
    return parts.map((part) => {
      if (!part.outputStoredApart) return part;
      const { outputStoredApart: _apart, ...rest } = part;
      const json = outputs.get(part.callId);
      return (typeof json === "string" ? { ...rest, output: JSON.parse(json) } : rest) as TPart;
    });
  }

  /** One call's output stored apart (keepOutputApart); undefined when there is none (or it is gone). */
  async outputStoredApart(runId: string, callId: string): Promise<unknown> {
    const json = await this.redis.hget(this.keys.runOutputs(runId), callId);
    return typeof json === "string" ? JSON.parse(json) : undefined;
  }

  /** Saves when nobody saved since `stored` was read, with its events in the same atomic step. */
  async save(stored: IStoredRun, next: TRunState, events: TRunEventInput[] = []): Promise<IStoredRun> {
    if (stored.jobPayload) return this.saveStarted(stored, stored.jobPayload, next, events);
    const at = this.options.now();
    const revision = await this.redis.tgSaveRun(
      this.keys.run(next.runId),
      this.keys.runEvents(next.runId),
      String(stored.revision),
      stateBytes(next),
      String(this.options.eventsMaxLength),
      ...events.map((event) => eventJson(event, at)),
    );
    if (revision < 0) throw conflict(next.runId);
    return { ...stored, state: next, revision };
  }

  /**
   * Adds `save` to `transaction` (a MULTI): the same check and writes, and when it saves, it opens the
   * run job's `fence`, so the tool jobs added after it in the transaction go through (see
   * runtime/parent-fence.ts). Read its reply with `savedIn`.
   */
  saveIn(
    transaction: IRunCreateTransaction,
    stored: IStoredRun,
    next: TRunState,
    events: TRunEventInput[],
    fence: IParentFence,
  ): void {
    // A state its job carried is first saved alone, with the checks it needs (saveStarted).
    if (stored.carried) throw carriedConflict(next.runId, false);
    const at = this.options.now();
    transaction.runCommand(checkpointCommand, [
      this.keys.run(next.runId),
      this.keys.runEvents(next.runId),
      fence.parentKey,
      fence.fencedKey,
      String(stored.revision),
      stateBytes(next),
      String(this.options.eventsMaxLength),
      ...events.map((event) => eventJson(event, at)),
    ]);
  }

  /** What `saveIn`'s reply says: the run as saved, or TG_STATE_CONFLICT when another worker saved since. */
  savedIn(reply: number, stored: IStoredRun, next: TRunState): IStoredRun {
    if (reply < 0) throw conflict(next.runId);
    return { ...stored, state: next, revision: reply };
  }

  /**
   * A save that also drops the state from the run job's payload. The first save of a state the run job
   * carried saves only when nothing happened to the run since its creation (not cancelled, not saved,
   * the stored state the carried one), checked in the same atomic step; its refusal is a conflict with
   * `details.carried`: the activation reads the stored state and starts again from it.
   */
  private async saveStarted(
    stored: IStoredRun,
    runJob: IRunJobPayloadSwap,
    next: TRunState,
    events: TRunEventInput[],
  ): Promise<IStoredRun> {
    const at = this.options.now();
    const revision = await this.redis.tgSaveStartedRun(
      this.keys.run(next.runId),
      this.keys.runEvents(next.runId),
      this.keys.runCancel(next.runId),
      runJob.key,
      String(stored.revision),
      stateBytes(next),
      String(this.options.eventsMaxLength),
      stored.carried?.sha1 ?? "",
      runJob.slimData,
      ...events.map((event) => eventJson(event, at)),
    );
    if (revision < 0)
      throw stored.carried ? carriedConflict(next.runId, revision === -2) : conflict(next.runId);
    const { carried: _checked, jobPayload: _dropped, ...rest } = stored;
    return { ...rest, state: next, revision };
  }

  /**
   * The run's end in one step: the final state and its events (unless `save` is false: it was saved
   * before), the retention TTL, the waiters told, and the run released from its thread. Returns the id of
   * the thread's next run, to wake.
   */
  async finish(
    stored: IStoredRun,
    next: TRunState,
    events: TRunEventInput[],
    release: IThreadRelease,
    save: boolean,
  ): Promise<{ stored: IStoredRun; nextRunId?: string }> {
    // A run ending from the state its job carried, before any save checked it: read the stored one first.
    if (stored.carried) throw carriedConflict(next.runId, false);
    const at = this.options.now();
    // The released thread is the run's own: its id within the run's tenant.
    const tenant = threadOfRun(next).tenant;
    const thread = { tenant, threadId: release.threadId };
    const index = runIndexTimes(this.options.retentionMs, at);
    // The run leaves the tenant's unfinished runs and joins the indexes of its ending: its final status
    // and each tool it called (its results name them, refused calls too: the model called them).
    const joins = [
      this.keys.runIndex("status", tenant, next.status),
      ...[...new Set(next.toolResults.map((part) => part.toolName))].map((tool) =>
        this.keys.runIndex("tool", tenant, tool),
      ),
    ];
    const keys = [
      this.keys.run(next.runId),
      this.keys.runEvents(next.runId),
      this.keys.threadRuns(thread),
      this.keys.threadMessages(thread),
      this.keys.activeRuns(),
      this.keys.runOutputs(next.runId),
      this.keys.runIndex("unfinished", tenant),
      ...joins,
    ];
    const [revision, nextRunId] = await this.redis.tgFinishRun(
      String(keys.length),
      ...keys,
      save ? String(stored.revision) : "",
      save ? stateBytes(next) : "",
      String(this.options.retentionMs),
      String(this.options.eventsMaxLength),
      this.keys.finishedChannel(),
      release.runId,
      // Bytes, as the state (see stateBytes): the response is the second-largest argument of a finish.
      save ? Buffer.from(finishedMessage(next)) : release.runId,
      String(this.options.maxHistoryMessages),
      String(this.options.threadRetentionMs),
      String(release.messages.length),
      String(next.createdAt),
      index.cutoff,
      index.ttlMs,
      ...release.messages.map((message) => JSON.stringify(message)),
      ...(save ? events.map((event) => eventJson(event, at)) : []),
    );
    if (revision < 0) throw conflict(next.runId);
    const result: { stored: IStoredRun; nextRunId?: string } = {
      stored: { ...stored, state: next, revision },
    };
    if (nextRunId) result.nextRunId = nextRunId;
    return result;
  }

  /**
   * Stores a call's large output apart from the run's state (the state keeps `outputStoredApart`), with
   * the state's lifetime: the state every activation reads and writes stays small.
   */
  async keepOutputApart(runId: string, callId: string, outputJson: string): Promise<void> {
    await this.redis.tgKeepOutputApart(
      this.keys.runOutputs(runId),
      this.keys.run(runId),
      callId,
      outputJson,
      String(this.options.retentionMs),
    );
  }

  /**
   * The response with the outputs stored apart put back (one read, only when the run has such outputs):
   * what the run's readers (getRun, ask, wait) return. An output gone with its key is left absent.
   */
  async withOutputs<TWithResults extends Pick<IGatewayResponse, "toolResults">>(
    runId: string,
    response: TWithResults,
  ): Promise<TWithResults> {
    const toolResults = await this.resultsWithOutputs(runId, response.toolResults);
    return toolResults === response.toolResults ? response : { ...response, toolResults };
  }

  /**
   * Appends events that come with no state change of the run (a human's decision, the tool jobs just
   * added), in the same format and under the same length cap as the events saved with the state.
   */
  async appendEvents(runId: string, events: TRunEventInput[]): Promise<void> {
    if (events.length === 0) return;
    const at = this.options.now();
    const key = this.keys.runEvents(runId);
    if (events.length === 1) {
      await this.redis.xadd(
        key,
        "MAXLEN",
        "~",
        this.options.eventsMaxLength,
        "*",
        "event",
        eventJson(events[0]!, at),
      );
      return;
    }
    const pipeline = this.redis.pipeline();
    for (const event of events) {
      pipeline.xadd(key, "MAXLEN", "~", this.options.eventsMaxLength, "*", "event", eventJson(event, at));
    }
    await pipeline.exec();
  }

  async appendEvent(runId: string, event: TRunEventInput): Promise<void> {
    await this.appendEvents(runId, [event]);
  }

  /**
   * Sets the cancel flag once (the first reason wins) and announces it; true when set now. The run job's
   * payload drops the state it may carry, in the same step: whoever takes the job reads the flag.
   */
  async requestCancel(runId: string, reason: TCancelReason, runJob: IRunJobPayloadSwap): Promise<boolean> {
    const set = await this.redis.tgRequestCancel(
      this.keys.runCancel(runId),
      this.keys.runEvents(runId),
      runJob.key,
      reason,
      String(this.options.retentionMs),
      eventJson({ type: "run-cancel-requested", data: { reason } }, this.options.now()),
      String(this.options.eventsMaxLength),
      runJob.slimData,
    );
    return set === 1;
  }

  /**
   * Runs not finished whose last check (at first, their creation) is at or before `checkedBefore`, oldest
   * first: what the reconciler looks at.
   */
  async activeRunsCheckedBefore(checkedBefore: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.activeRuns(), "-inf", checkedBefore, "LIMIT", 0, limit);
  }

  /** The reconciler found the run held by its job: look again only after another full wait. */
  async markChecked(runId: string): Promise<void> {
    await this.redis.zadd(this.keys.activeRuns(), "XX", this.options.now(), runId);
  }

  /**
   * Counts one more retry of the run's failed job by the reconciler and returns the count: a field of the
   * run's hash beside its state (saves write only `rev` and `state`), so it goes with the run.
   */
  async countReconcilerRetry(runId: string): Promise<number> {
    return this.redis.hincrby(this.keys.run(runId), "reconcilerRetries", 1);
  }

  /** A run that finished (or whose state is gone) leaves the index of active runs. */
  async forgetActive(runId: string): Promise<void> {
    await this.redis.zrem(this.keys.activeRuns(), runId);
  }

  /** Why the run was cancelled, if it was. */
  async cancelReason(runId: string): Promise<TCancelReason | undefined> {
    const reason = await this.redis.get(this.keys.runCancel(runId));
    const parsed = cancelReasonSchema.safeParse(reason);
    return parsed.success ? parsed.data : undefined;
  }
}

/**
 * What waiters hear when the run finishes: its id, and its response when that is small enough to send to
 * every subscriber (a large one is read from the state by the waiter instead).
 */
const maxPublishedResponseChars = 32_768;

function finishedMessage(state: TRunState): string {
  // A response without its outputs stored apart would be incomplete: the waiter reads the run instead.
  if (state.toolResults.some((part) => part.outputStoredApart)) return JSON.stringify({ runId: state.runId });
  const withResponse = JSON.stringify({ runId: state.runId, response: responseOf(state) });
  return withResponse.length <= maxPublishedResponseChars
    ? withResponse
    : JSON.stringify({ runId: state.runId });
}

/**
 * The state as the argument of a save: its JSON's bytes, serialized once. ioredis sends a string argument
 * by concatenating it into the command's text, which V8 copies again when the command is written (twice
 * when auto-pipelining joins it to other commands); a Buffer is copied into the write as bytes, off the
 * heap. The state is the largest argument a run sends, at every save.
 */
function stateBytes(state: TRunState): Buffer {
  return Buffer.from(JSON.stringify(state));
}

function conflict(runId: string): TollgateError {
  return new TollgateError(
    "TG_STATE_CONFLICT",
    `Run ${runId} was saved by another worker since this one read it; this activation stops.`,
    { runId },
  );
}

/** A first save refused: the run is not as its job carried it (`cancelled`: its cancellation was asked). */
function carriedConflict(runId: string, cancelled: boolean): TollgateError {
  return new TollgateError(
    "TG_STATE_CONFLICT",
    `Run ${runId} changed since its job was queued; this activation reads it again.`,
    { runId, carried: true, cancelled },
  );
}

/** Whether a conflict refused the first save of a state the run job carried (read the stored one). */
export function isCarriedConflict(error: unknown): boolean {
  return (
    TollgateError.isInstance(error) && error.code === "TG_STATE_CONFLICT" && error.details?.carried === true
  );
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
  const read = readRunState(raw);
  if (!read.ok) {
    throw new TollgateError(
      "TG_STATE_CORRUPT",
      `The stored state of run ${runId} is unreadable: ${read.reason}.`,
      {
        runId,
        ...(read.issues ? { issues: read.issues } : {}),
      },
    );
  }
  return read.state;
}
