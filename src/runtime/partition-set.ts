import { parseRuntimeOptions, type TRuntimeOptions } from "../config/runtime-options.js";
import { TollgateError } from "../errors/index.js";
import {
  hashIndexOf,
  type IPartition,
  type IThreadRef,
  layoutPartitions,
  namesPartition,
  partitionByName,
  partitionNamedBy,
} from "../store/index.js";
import {
  createRuntime,
  createRuntimeConnections,
  type IRuntimeInit,
  type ITollgateRuntime,
} from "./runtime.js";

/**
 * The runtimes of every partition a process can reach, over one pair of shared connections: a thin
 * router in front of per-prefix runtimes, which know nothing of each other. With `partitions: 1` (and no
 * previous layout) it holds one runtime, the one Tollgate always had.
 */
export interface IPartitionSet {
  /** The deployment's options, `prefix` the configured one. */
  readonly options: TRuntimeOptions;
  /** Where new runs go: the partitions of the current layout, in index order. */
  readonly current: readonly ITollgateRuntime[];
  /** The partitions of the previous layout (the same as `current` when it did not change). */
  readonly previous: readonly ITollgateRuntime[];
  /** Every partition reachable: the current layout, then what only the previous layout (or `extra`) has. */
  readonly all: readonly ITollgateRuntime[];
  /** The first partition of the current layout: what callers that need one runtime use. */
  readonly home: ITollgateRuntime;
  /** The partition an id (run, call, approval) names; undefined when this process cannot reach it. */
  ofId(id: string): ITollgateRuntime | undefined;
  /**
   * Every partition that may hold a thread, the one its new runs go to first: a thread the previous
   * layout holds keeps its runs there while that layout is kept (see `forThread`). By the id alone: every
   * tenant's thread of that id is in the same partition (their keys differ).
   */
  ofThread(threadId: string): ITollgateRuntime[];
  /** The partition a new run on this thread goes to: where the thread already is, else its own. */
  forThread(thread: IThreadRef): Promise<ITollgateRuntime>;
  /** The partition of a new run without a thread: `key` (stable) spreads them, none: at random. */
  forKey(key: string | undefined): ITollgateRuntime;
  /** The partitions named (`base`, `<index>`, `<index>of<count>`); all reachable ones when none are. */
  served(names?: readonly string[]): ITollgateRuntime[];
  close(): Promise<void>;
}

export type TPartitionSetInit = Omit<IRuntimeInit, "partition" | "connections" | "runQueueOf"> & {
  /** More partitions to reach than the two layouts: a worker told to drain an older one. */
  extra?: readonly string[];
};

export function createPartitionSet(init: TPartitionSetInit): IPartitionSet {
  const options = parseRuntimeOptions(init.options);
  const prefix = options.prefix;
  const wanted = new Map<string, IPartition>();
  for (const partition of layoutPartitions(prefix, options.partitions)) wanted.set(partition.name, partition);
  for (const partition of layoutPartitions(prefix, options.previousPartitions))
    wanted.set(partition.name, partition);
  for (const name of [...(init.extra ?? []), ...(options.servedPartitions ?? [])]) {
    const partition = partitionByName(prefix, name, options.partitions);
    if (!partition) throw unknownPartition(name, options.partitions);
    wanted.set(partition.name, partition);
  }
  const onError = init.onConnectionError ?? (() => undefined);
  const connections = createRuntimeConnections(options, init.role, onError);
  const byName = new Map<string, ITollgateRuntime>();
  const runQueueOf = (runId: string) => byName.get(partitionNamedBy(prefix, runId).name)?.queues.runs;
  try {
    for (const partition of wanted.values()) {
      byName.set(partition.name, createRuntime({ ...init, partition, connections, runQueueOf }));
    }
  } catch (error) {
    connections.redis.disconnect();
    connections.queueConnection.disconnect();
    throw error;
  }
  const runtimeOf = (partition: IPartition) => byName.get(partition.name)!;
  const current = layoutPartitions(prefix, options.partitions).map(runtimeOf);
  const previous = layoutPartitions(prefix, options.previousPartitions).map(runtimeOf);
  const all = [...byName.values()];

  function ofThread(threadId: string): ITollgateRuntime[] {
    if (namesPartition(threadId)) {
      const named = byName.get(partitionNamedBy(prefix, threadId).name);
      if (named) return [named];
    }
    const own = current[hashIndexOf(threadId, current.length)]!;
    const before = previous[hashIndexOf(threadId, previous.length)]!;
    return before === own ? [own] : [own, before];
  }

  return {
    options,
    current,
    previous,
    all,
    home: current[0]!,
    ofId: (id) => byName.get(partitionNamedBy(prefix, id).name),
    ofThread,
    async forThread(thread) {
      const [own, before] = ofThread(thread.threadId);
      if (!before) return own!;
      const { redis, keys } = before;
      // Any key a thread keeps while it lives: its runs (its index; the set of an earlier version), its history.
      const known = await redis.exists(
        keys.runIndex("thread", thread.tenant, thread.threadId),
        keys.legacyThreadRunIds(thread),
        keys.threadMessages(thread),
      );
      return known > 0 ? before : own!;
    },
    forKey: (key) =>
      current[
        key === undefined ? Math.floor(Math.random() * current.length) : hashIndexOf(key, current.length)
      ]!,
    served(names) {
      if (!names) return all;
      return [
        ...new Set(
          names.map((name) => {
            const partition = partitionByName(prefix, name, options.partitions);
            const runtime = partition && byName.get(partition.name);
            if (!runtime) throw unknownPartition(name, options.partitions);
            return runtime;
          }),
        ),
      ];
    },
    async close() {
      await Promise.allSettled(all.map((runtime) => runtime.close()));
      await Promise.allSettled([connections.redis.quit(), connections.queueConnection.quit()]);
    },
  };
}

function unknownPartition(name: string, count: number): TollgateError {
  return new TollgateError(
    "TG_INVALID_CONFIG",
    `No partition "${name}" in a layout of ${count} (TOLLGATE_SERVED_PARTITIONS, --partitions): name ` +
      `base, an index below ${count}, or <index>of<count> for a partition of another layout.`,
    { partition: name },
  );
}
