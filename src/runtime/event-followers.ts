import { setTimeout as delay } from "node:timers/promises";
import type { Redis } from "ioredis";
import type { IRunEvent, ITollgateRedis } from "../store/index.js";
import {
  compareStreamIds,
  keySlot,
  nodeServingSlot,
  streamEntriesBytes,
  type TStreamEntry,
  toRunEvent,
} from "../store/index.js";

/** How a follower reads the entries of its stream. */
export interface IStreamReading<TEvent extends { id: string }> {
  /** The event an entry holds, or undefined to pass over it (an event the follower may not see). */
  toEvent(entry: TStreamEntry): TEvent | undefined;
  /** Whether this event ends the follower's stream (a run's `run-finished`); never, for endless ones. */
  isLast(event: TEvent): boolean;
}

import type { ITollgateRuntime } from "./runtime.js";

export interface IEventFollowersOptions {
  /** Followers served by one blocking connection (one XREAD over all their streams). @defaultValue 100 */
  followersPerConnection?: number;
  /** Longest one XREAD blocks; joining followers interrupt it, so this only bounds a missed wake-up. */
  blockMs?: number;
  /** Events a follower may have waiting unread before its stream is left out of the reads. @defaultValue 1000 */
  maxBufferedEvents?: number;
  /**
   * Bytes (of the entries as they came) a follower may have waiting unread before it is left out of the
   * reads: an SSE client that stops reading stops its follower here, not at a thousand large events.
   * One entry may cross it. @defaultValue 65536
   */
  maxBufferedBytes?: number;
}

/** The name operators see in CLIENT LIST for the connections that follow live runs under `prefix`. */
export function followerConnectionName(prefix: string): string {
  // CLIENT SETNAME refuses spaces and control characters; a prefix has no spaces, but be safe.
  return `tollgate-event-followers:${prefix.replace(/[^\x21-\x7e]/g, "_")}`;
}

/** One reader of one stream (a run's events, the approval events). */
class Follower<TEvent extends { id: string } = { id: string }> {
  readonly buffered: TEvent[] = [];
  /** The size of each buffered event's stream entry, in the order of `buffered`. */
  private readonly sizes: number[] = [];
  /** What the buffered events took on the wire (their entries' ids and fields), in bytes. */
  bufferedBytes = 0;
  error: unknown;
  /** Set at its last event (a run's `run-finished`), or when the followers close. */
  ended = false;
  /** Left out of the reads because its reader is behind by `maxBufferedEvents` or `maxBufferedBytes`. */
  paused = false;
  private wake: (() => void) | undefined;

  constructor(
    readonly key: string,
    readonly reading: IStreamReading<TEvent>,
    /** The id of the last entry handed to this follower or passed over (buffered or read). */
    public lastId: string,
  ) {}

  push(event: TEvent, bytes: number): void {
    this.buffered.push(event);
    this.sizes.push(bytes);
    this.bufferedBytes += bytes;
    this.lastId = event.id;
    this.notify();
  }

  /** The oldest buffered event, taken out. */
  shift(): TEvent | undefined {
    const event = this.buffered.shift();
    if (event !== undefined) this.bufferedBytes -= this.sizes.shift() ?? 0;
    return event;
  }

  fail(error: unknown): void {
    this.error = error;
    this.notify();
  }

  notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** Resolves at the next push, failure or abort. */
  waitForMore(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        signal.removeEventListener("abort", done);
        resolve();
      };
      this.wake = done;
      signal.addEventListener("abort", done, { once: true });
    });
  }
}

/**
 * Followers that share one blocking connection: one `XREAD BLOCK` over every stream they follow. A
 * follower that joins interrupts the read in progress (CLIENT UNBLOCK) so that its stream is read too.
 */
class FollowerGroup {
  readonly followers = new Set<Follower>();
  private readonly connection: ITollgateRedis;
  /**
   * The slot of the streams read (a prefix's keys share one, by its hash tag; 0 on a single node): the
   * blocking XREAD, and the CLIENT UNBLOCK that ends it, go to the node serving it.
   */
  private slot: Promise<number> | undefined;
  /**
   * The blocking connection's CLIENT ID on each node it reads from, asked before its first read there
   * (a blocked connection answers nothing else) and again after the node reconnects (a new connection,
   * a new id). On a single node, the one connection.
   */
  private readonly clientIds = new Map<Redis, number>();
  /** Where the read in progress blocks, and as which client: what CLIENT UNBLOCK must name. */
  private blocked: { slot: number; clientId: number } | undefined;
  private reading = false;
  private closed = false;
  /** Bumped at each change a read must see; `readVersion` is the version the read in progress saw. */
  private version = 0;
  private readVersion = -1;
  /** The position each stream is read from by the read in progress (or the last one). */
  private readFrom = new Map<string, string>();

  constructor(
    private readonly runtime: ITollgateRuntime,
    private readonly settings: Required<IEventFollowersOptions>,
    private readonly onEmpty: (group: FollowerGroup) => void,
  ) {
    // Named by ioredis at each connection, to every node of a cluster: CLIENT SETNAME sent once would
    // name one random node's connection, and none after a reconnection.
    this.connection = runtime.duplicateConnection({
      connectionName: followerConnectionName(runtime.keys.prefix),
    });
  }

  add(follower: Follower): void {
    this.followers.add(follower);
    this.wakeReader();
  }

  remove(follower: Follower): void {
    this.followers.delete(follower);
    if (this.followers.size === 0) this.close();
  }

  /** Reads the streams again at once: a follower joined, or one that was paused drained its buffer. */
  wakeReader(): void {
    if (this.closed) return;
    this.version += 1;
    if (this.reading) void this.interruptRead(this.version);
    else void this.readLoop();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onEmpty(this);
    for (const follower of this.followers) {
      follower.ended = true;
      follower.notify();
    }
    // Rejects a read in progress: the loop then ends.
    this.connection.disconnect();
  }

  /**
   * Ends the blocking read in progress so that the next one sees version `target`. The UNBLOCK may
   * overtake the XREAD it targets (they travel on different connections), hence a few more tries
   * while the read in progress is older; past them, the read ends by its own timeout (blockMs).
   */
  private async interruptRead(target: number): Promise<void> {
    try {
      for (let attempt = 0; attempt < 20; attempt++) {
        if (this.closed || !this.reading || this.readVersion >= target) return;
        const blocked = this.blocked;
        const node = blocked && nodeServingSlot(this.runtime.redis, blocked.slot);
        if (blocked && node && (await node.client("UNBLOCK", blocked.clientId)) === 1) return;
        await delay(5);
      }
    } catch {
      // The read ends by its own timeout instead.
    }
  }

  /** The blocking connection's client id on the node serving `slot`, asked there before it blocks. */
  private async clientIdOn(slot: number): Promise<number | undefined> {
    const node = nodeServingSlot(this.connection, slot);
    if (!node) return undefined;
    const known = this.clientIds.get(node);
    if (known !== undefined) return known;
    if (!this.clientIds.has(node)) node.on("ready", () => this.clientIds.delete(node));
    const clientId = (await node.client("ID")) as number;
    this.clientIds.set(node, clientId);
    return clientId;
  }

  private async readLoop(): Promise<void> {
    this.reading = true;
    try {
      while (!this.closed && this.followers.size > 0) {
        const streams = this.streamsToRead();
        if (streams.size === 0) {
          // Every follower is paused: the first to drain its buffer, or a new one, wakes the reader.
          this.reading = false;
          return;
        }
        this.slot ??= keySlot(this.connection, streams.keys().next().value!);
        const slot = await this.slot;
        const clientId = await this.clientIdOn(slot);
        this.blocked = clientId === undefined ? undefined : { slot, clientId };
        this.readVersion = this.version;
        this.readFrom = streams;
        const reply = (await this.connection.xread(
          "COUNT",
          100,
          "BLOCK",
          this.settings.blockMs,
          "STREAMS",
          ...streams.keys(),
          ...streams.values(),
        )) as [string, TStreamEntry[]][] | null;
        for (const [key, entries] of reply ?? []) this.deliver(key, entries);
      }
    } catch (error) {
      // A failed KEYSLOT is asked again by the next reader.
      this.slot = undefined;
      if (!this.closed) for (const follower of this.followers) follower.fail(error);
    }
    this.reading = false;
  }

  /** Each stream once, read from the earliest position any of its followers still needs. */
  private streamsToRead(): Map<string, string> {
    const streams = new Map<string, string>();
    for (const follower of this.followers) {
      if (follower.ended) continue;
      if (this.isFull(follower)) follower.paused = true;
      if (follower.paused) continue;
      const known = streams.get(follower.key);
      if (known === undefined || compareStreamIds(follower.lastId, known) < 0) {
        streams.set(follower.key, follower.lastId);
      }
    }
    return streams;
  }

  private isFull(follower: Follower): boolean {
    return (
      follower.buffered.length >= this.settings.maxBufferedEvents ||
      follower.bufferedBytes >= this.settings.maxBufferedBytes
    );
  }

  /**
   * Hands each follower of `key` the entries after its position, until it is full: it is then paused and
   * left out (its position stays at the last entry it took, so the read after it resumes starts there).
   * A paused follower takes nothing from the reads of the others of its stream.
   */
  private deliver(key: string, entries: TStreamEntry[]): void {
    const readFrom = this.readFrom.get(key);
    for (const follower of this.followers) {
      if (follower.key !== key || follower.ended || follower.paused) continue;
      // This read started after the follower's position (it joined, or was paused, while a read from
      // another follower's later position was in progress): handing it these entries would skip the ones
      // between. The next read starts from its position.
      if (readFrom !== undefined && compareStreamIds(follower.lastId, readFrom) < 0) continue;
      for (const entry of entries) {
        if (compareStreamIds(entry[0], follower.lastId) <= 0) continue;
        if (this.isFull(follower)) {
          follower.paused = true;
          break;
        }
        const event = follower.reading.toEvent(entry);
        if (event === undefined) {
          follower.lastId = entry[0];
          continue;
        }
        follower.push(event, streamEntriesBytes([entry]));
        if (follower.reading.isLast(event)) {
          follower.ended = true;
          break;
        }
      }
    }
  }
}

/**
 * Follows live streams for a whole process (runs' events, the approval events), on a few shared
 * connections: each connection serves up to `followersPerConnection` followers, so 1,000 SSE streams
 * cost 10 connections, not 1,000. A follower reads until its stream's last event (a run's
 * `run-finished`), or until its signal aborts.
 */
export class EventFollowers {
  private readonly settings: Required<IEventFollowersOptions>;
  private readonly groups = new Set<FollowerGroup>();

  constructor(
    private readonly runtime: ITollgateRuntime,
    options: IEventFollowersOptions = {},
  ) {
    this.settings = {
      followersPerConnection: options.followersPerConnection ?? 100,
      blockMs: options.blockMs ?? 5_000,
      maxBufferedEvents: options.maxBufferedEvents ?? 1_000,
      maxBufferedBytes: options.maxBufferedBytes ?? 64 * 1024,
    };
  }

  /** Events of `runId` after `afterId`, as they are appended, up to `run-finished`. */
  follow(runId: string, afterId: string, signal: AbortSignal): AsyncGenerator<IRunEvent> {
    return this.followStream(
      this.runtime.keys.runEvents(runId),
      afterId,
      { toEvent: (entry) => toRunEvent(runId, entry), isLast: (event) => event.type === "run-finished" },
      signal,
    );
  }

  /** The events of the stream at `key` after `afterId`, as they are appended, up to its last one. */
  async *followStream<TEvent extends { id: string }>(
    key: string,
    afterId: string,
    reading: IStreamReading<TEvent>,
    signal: AbortSignal,
  ): AsyncGenerator<TEvent> {
    const follower = new Follower<TEvent>(key, reading, afterId);
    const group = this.groupWithRoom();
    group.add(follower);
    try {
      for (;;) {
        const event = follower.shift();
        if (event) {
          if (follower.paused && follower.buffered.length === 0) {
            follower.paused = false;
            group.wakeReader();
          }
          yield event;
          if (reading.isLast(event)) return;
          continue;
        }
        if (follower.error !== undefined) throw follower.error;
        if (signal.aborted || follower.ended) return;
        await follower.waitForMore(signal);
      }
    } finally {
      group.remove(follower);
    }
  }

  /** The connections currently open for followers. */
  get connectionCount(): number {
    return this.groups.size;
  }

  /** Followers left out of the reads until their reader takes what they hold. */
  get pausedCount(): number {
    let paused = 0;
    for (const group of this.groups) for (const follower of group.followers) if (follower.paused) paused += 1;
    return paused;
  }

  /** What every follower holds read but not yet taken by its reader, in bytes (as the entries came). */
  get bufferedBytes(): number {
    let bytes = 0;
    for (const group of this.groups) for (const follower of group.followers) bytes += follower.bufferedBytes;
    return bytes;
  }

  close(): void {
    for (const group of [...this.groups]) group.close();
  }

  private groupWithRoom(): FollowerGroup {
    for (const group of this.groups) {
      if (group.followers.size < this.settings.followersPerConnection) return group;
    }
    const group = new FollowerGroup(this.runtime, this.settings, (empty) => this.groups.delete(empty));
    this.groups.add(group);
    return group;
  }
}
