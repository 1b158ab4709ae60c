import { clusterSlotCount, hashSlotOf } from "./hash-slot.js";

/** The most partitions a deployment may have: each costs every worker process three queue connections. */
export const maxPartitions = 64;

/**
 * One complete set of queues and stores under its own hash-tagged prefix. The unpartitioned layout (what
 * `partitions: 1` means, and every deployment had before partitions existed) is the partition named
 * `base`: its prefix is the configured one and its ids carry no partition.
 */
export interface IPartition {
  /** `base`, or `<index>of<count>`. */
  readonly name: string;
  /** Absent for `base`. */
  readonly index?: number;
  /** The layout it belongs to: 1 for `base`. */
  readonly count: number;
  /** Prefix of its keys and queues. */
  readonly prefix: string;
  /** Every run id of the partition starts with it (`run_`, or `run_p1of3_`); call and approval ids too. */
  readonly runIdPrefix: string;
  /** Threads created for a run without one start with it (`thread_`, or `thread_p1of3_`). */
  readonly threadIdPrefix: string;
  /** Schedules created in it start with it (`sch_`, or `sch_p1of3_`). */
  readonly scheduleIdPrefix: string;
}

/** A run, call, approval, thread or schedule id that names its partition: `run_p<index>of<count>_…`. */
const partitionToken = /^(?:run|thread|sch)_p(0|[1-9]\d{0,2})of([1-9]\d{0,2})_/;

export function basePartition(prefix: string): IPartition {
  return {
    name: "base",
    count: 1,
    prefix,
    runIdPrefix: "run_",
    threadIdPrefix: "thread_",
    scheduleIdPrefix: "sch_",
  };
}

/** Partition `index` of a layout of `count` (a layout of 1 is `base`). */
export function partitionOf(prefix: string, index: number, count: number): IPartition {
  if (count === 1) return basePartition(prefix);
  const token = `p${index}of${count}`;
  return {
    name: `${index}of${count}`,
    index,
    count,
    prefix: partitionPrefix(prefix, index, count),
    runIdPrefix: `run_${token}_`,
    threadIdPrefix: `thread_${token}_`,
    scheduleIdPrefix: `sch_${token}_`,
  };
}

/** Every partition of a layout of `count`, in index order. */
export function layoutPartitions(prefix: string, count: number): IPartition[] {
  return Array.from({ length: count }, (_, index) => partitionOf(prefix, index, count));
}

/**
 * The prefix of partition `index` of `count`: the configured prefix with its hash tag (or, without one,
 * the whole prefix as the tag) extended by `-<index>of<count>`. A name alone lands on an arbitrary slot,
 * and with `{tollgate-0}`, `{tollgate-1}`, `{tollgate-2}` two of three land on the same master of a cluster
 * whose slots are split evenly. So the tag is the first of `-<index>of<count>`, `-<index>of<count>.1`, ...
 * whose slot lies in the `index`-th of `count` equal ranges of the slot space: on a cluster split evenly
 * (what `redis-cli --cluster create` does) the partitions spread over the masters. Deterministic, so every
 * process derives the same prefixes.
 */
export function partitionPrefix(prefix: string, index: number, count: number): string {
  const open = prefix.indexOf("{");
  const close = open >= 0 ? prefix.indexOf("}", open + 1) : -1;
  const tagged = close > open + 1;
  const before = tagged ? prefix.slice(0, open + 1) : "{";
  const tag = tagged ? prefix.slice(open + 1, close) : prefix;
  const after = tagged ? prefix.slice(close) : "}";
  const low = Math.floor((index * clusterSlotCount) / count);
  const high = Math.floor(((index + 1) * clusterSlotCount) / count);
  for (let attempt = 0; ; attempt++) {
    const candidate = `${before}${tag}-${index}of${count}${attempt === 0 ? "" : `.${attempt}`}${after}`;
    const slot = hashSlotOf(candidate);
    if (slot >= low && slot < high) return candidate;
  }
}

/**
 * The partition an id names (run, call, approval or thread id: they all start with the run's or the
 * thread's id); an id that names none belongs to `base`. Pure: no lookup, whatever the process.
 */
export function partitionNamedBy(prefix: string, id: string): IPartition {
  const match = partitionToken.exec(id);
  if (!match) return basePartition(prefix);
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (count < 2 || count > maxPartitions || index >= count) return basePartition(prefix);
  return partitionOf(prefix, index, count);
}

/** Whether an id carries a partition token (a thread id that does keeps its partition). */
export function namesPartition(id: string): boolean {
  return partitionToken.test(id);
}

/** FNV-1a over the id's UTF-8 bytes, mod `count`: where a thread's runs go when its id names no partition. */
export function hashIndexOf(id: string, count: number): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(id)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash % count;
}

/** `base`, `<index>` (of the current layout) or `<index>of<count>`, as `--partitions` takes them. */
export function partitionByName(prefix: string, name: string, count: number): IPartition | undefined {
  const text = name.trim();
  if (text === "base") return basePartition(prefix);
  const match = /^(0|[1-9]\d{0,2})(?:of([1-9]\d{0,2}))?$/.exec(text);
  if (!match) return undefined;
  const index = Number(match[1]);
  const layout = match[2] !== undefined ? Number(match[2]) : count;
  if (layout > maxPartitions || index >= layout) return undefined;
  return partitionOf(prefix, index, layout);
}
