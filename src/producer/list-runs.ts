import { runSummaryOf, type TRunSummary } from "../contracts/index.js";
import type { IPartitionSet } from "../runtime/partition-set.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import {
  decodeRunCursor,
  encodeRunCursor,
  type IRunIndexRead,
  type IRunPosition,
  type IRunQuery,
  precedes,
  readRunIndexes,
} from "../store/index.js";

export interface IRunPage {
  runs: TRunSummary[];
  /** Absent on the last page. */
  nextCursor?: string;
}

/** @defaultValue of `limit`. */
export const defaultRunPageLimit = 50;

/**
 * A page of runs over every partition, newest first, as one index would give it. Every partition reads
 * from the same position (creation time and id: one order for every index and partition), so the merged
 * page is the first `limit` runs after it, cut where a partition stopped short of being exact (its scan
 * bound), and the next cursor is the position of the last run given: a run created or finished meanwhile
 * is neither skipped nor repeated.
 */
export async function pageRuns(partitions: IPartitionSet, query: IRunQuery): Promise<IRunPage> {
  const { cursor, limit = defaultRunPageLimit, ...filters } = query;
  const after = cursor !== undefined ? decodeRunCursor(cursor) : undefined;
  // A thread's runs are in the partitions that hold the thread.
  const sources: readonly ITollgateRuntime[] =
    filters.threadId !== undefined ? partitions.ofThread(filters.threadId) : partitions.all;
  const reads = await Promise.all(
    sources.map((runtime) =>
      readRunIndexes(runtime.redis, runtime.keys, filters, after, limit, (runIds) =>
        runtime.runs.states(runIds),
      ),
    ),
  );
  const { runs, next } = mergeReads(reads, limit);
  const page: IRunPage = { runs: runs.map((run) => runSummaryOf(run.state)) };
  if (next !== undefined) page.nextCursor = encodeRunCursor(next);
  return page;
}

/** The first `limit` runs of every read, none past the earliest point where a read stopped being exact. */
function mergeReads(
  reads: IRunIndexRead[],
  limit: number,
): { runs: IRunIndexRead["runs"]; next?: IRunPosition } {
  let bound: IRunPosition | undefined;
  for (const read of reads) {
    if (read.through && (bound === undefined || precedes(read.through, bound))) bound = read.through;
  }
  const merged = reads
    .flatMap((read) => read.runs)
    .filter((run) => bound === undefined || !precedes(bound, run.position))
    .sort((a, b) => (precedes(a.position, b.position) ? -1 : precedes(b.position, a.position) ? 1 : 0));
  const runs = merged.slice(0, limit);
  if (runs.length === limit && (merged.length > limit || bound !== undefined)) {
    return { runs, next: runs.at(-1)!.position };
  }
  return bound !== undefined ? { runs, next: bound } : { runs };
}
