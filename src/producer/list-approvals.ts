import type { IPartitionSet } from "../runtime/partition-set.js";
import type { IApproval, IApprovalPage, IApprovalQuery } from "../store/index.js";
import { mergePartitionPages } from "./merge-partition-pages.js";

/** The store's default page size. */
const defaultLimit = 100;

/**
 * A page of approvals over every partition, in the listing's order (pending: soonest expiry first;
 * decided: newest decision first), as one index would give it. A run's are read from its own partition
 * only (its id names it), with the store's own cursor.
 */
export async function pageApprovals(
  partitions: IPartitionSet,
  query: IApprovalQuery,
): Promise<IApprovalPage> {
  if (query.runId !== undefined) {
    const runtime = partitions.ofId(query.runId);
    return runtime ? runtime.approvals.page(query) : { approvals: [] };
  }
  if (partitions.all.length === 1) return partitions.home.approvals.page(query);
  const decided = query.status !== undefined && query.status !== "pending";
  const { cursor, limit = defaultLimit, ...filters } = query;
  const merged = await mergePartitionPages<IApproval>({
    sources: partitions.all.map((runtime) => ({
      name: runtime.partition.name,
      read: async (partitionCursor, pageLimit) => {
        const page = await runtime.approvals.page({
          ...filters,
          limit: pageLimit,
          ...(partitionCursor !== undefined ? { cursor: partitionCursor } : {}),
        });
        return { items: page.approvals, next: page.nextCursor };
      },
    })),
    limit,
    compare: decided
      ? // Ties keep each partition's own order (newest decision first, by its sequence): a merged page
        // must take a prefix of every partition's page for the per-partition cursors to hold.
        (a, b) => (b.decision?.decidedAt ?? 0) - (a.decision?.decidedAt ?? 0)
      : (a, b) => a.expiresAt - b.expiresAt || compareIds(a, b),
    cursor,
  });
  return { approvals: merged.items, ...(merged.cursor !== undefined ? { nextCursor: merged.cursor } : {}) };
}

function compareIds(a: IApproval, b: IApproval): number {
  return a.approvalId < b.approvalId ? -1 : a.approvalId > b.approvalId ? 1 : 0;
}
