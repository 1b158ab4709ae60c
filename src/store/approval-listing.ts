import { type IApproval, type TApprovalListStatus, tenantOf } from "../contracts/index.js";
import { TollgateError } from "../errors/index.js";
import type { IKeys, TApprovalIndexDimension, TApprovalIndexState } from "./keys.js";
import { decidedTiesPerMs } from "./lua-scripts.js";
import type { ITollgateRedis } from "./redis-client.js";

export interface IApprovalQuery {
  /** @defaultValue "pending" */
  status?: TApprovalListStatus;
  /** Only this tenant's approvals. */
  tenant?: string;
  runId?: string;
  tool?: string;
  userId?: string;
  /**
   * Approvals whose user id contains this text, in any case ("iv" finds u-ivan): what a reviewer types.
   * No index holds parts of ids, so it is checked on the records of the smallest other index.
   */
  userIdContains?: string;
  /** Who decided (decided approvals). */
  approver?: string;
  /** Epoch ms, inclusive: requestedAt for pending approvals, decidedAt for decided ones. */
  since?: number;
  /** Epoch ms, inclusive. */
  until?: number;
  /** @defaultValue 100 */
  limit?: number;
  /** From the previous page's `nextCursor`. */
  cursor?: string;
}

export interface IApprovalPage {
  approvals: IApproval[];
  /** Absent on the last page. */
  nextCursor?: string;
}

/** Where a page ends: the index entry's score and id (an index-neutral position, mergeable across indexes). */
interface ICursor {
  score: string;
  id: string;
}

/** Index entries read per round trip, and read at most per page when filters must be checked on records. */
const minBatch = 50;
const lastTieFraction = (decidedTiesPerMs - 1) / decidedTiesPerMs;
const maxScannedPerPage = 5_000;

/**
 * Pages through approvals on their secondary indexes. Every filter is exact: the smallest index that
 * applies is read (by ZCARD), in rank order from the cursor (O(log n) however deep), and the other
 * filters are checked on the records. A page whose filters match few of the entries read stops after
 * `maxScannedPerPage` entries with a cursor, so a request costs a bounded amount whatever the data.
 * Pending approvals come soonest expiry first (ties by id), decided ones newest decision first (ties in
 * reverse order of decision). A run's pending approvals are the records of those its state may await
 * (`awaitedOfRun`), in the same order.
 */
export async function pageApprovals(
  redis: ITollgateRedis,
  keys: IKeys,
  query: IApprovalQuery,
  load: (ids: string[]) => Promise<Array<IApproval | undefined>>,
  awaitedOfRun: (runId: string) => Promise<string[]>,
): Promise<IApprovalPage> {
  const status = query.status ?? "pending";
  const state: TApprovalIndexState = status === "pending" ? "pending" : "decided";
  const limit = query.limit ?? 100;
  if (status === "pending" && query.runId !== undefined) {
    return pageOfRun(await load(await awaitedOfRun(query.runId)), query, limit);
  }
  const index = await smallestIndex(redis, keys, state, candidateIndexes(state, status, query));
  // Decided indexes are scored by decision time plus the order within its millisecond (a fraction, see
  // decidedTiesPerMs): the time range is the score range from the first to the last tie of its ends.
  const decided = state === "decided";
  const minScore = decided && query.since !== undefined ? String(Math.floor(query.since)) : "-inf";
  const maxScore =
    decided && query.until !== undefined ? String(Math.floor(query.until) + lastTieFraction) : "+inf";
  let cursor = query.cursor !== undefined ? decodeCursor(query.cursor) : undefined;
  const approvals: IApproval[] = [];
  let scanned = 0;
  const batch = Math.max(minBatch, limit);
  for (;;) {
    const flat = await redis.tgApprovalIndexPage(
      index,
      state === "pending" ? "asc" : "desc",
      cursor?.score ?? "",
      cursor?.id ?? "",
      minScore,
      maxScore,
      String(batch),
    );
    const entries: ICursor[] = [];
    for (let at = 0; at < flat.length; at += 2) entries.push({ id: flat[at]!, score: flat[at + 1]! });
    const records = await load(entries.map((entry) => entry.id));
    for (const [position, entry] of entries.entries()) {
      cursor = entry;
      scanned += 1;
      const approval = records[position];
      if (approval && matches(approval, status, query)) approvals.push(approval);
      if (approvals.length === limit) {
        const more = position < entries.length - 1 || entries.length === batch;
        return more ? { approvals, nextCursor: encodeCursor(entry) } : { approvals };
      }
    }
    if (entries.length < batch) return { approvals };
    if (scanned >= maxScannedPerPage && cursor) return { approvals, nextCursor: encodeCursor(cursor) };
  }
}

/**
 * A run's pending approvals, from the records of the approvals its state may still await (a handful: no
 * index holds them): in the order of the pending indexes (expiry, then id) and from the cursor as they
 * are, every filter checked on the records.
 */
function pageOfRun(
  records: Array<IApproval | undefined>,
  query: IApprovalQuery,
  limit: number,
): IApprovalPage {
  const after = query.cursor !== undefined ? decodeCursor(query.cursor) : undefined;
  const entries = records
    .filter(
      (approval): approval is IApproval => approval !== undefined && matches(approval, "pending", query),
    )
    .map((approval) => ({ approval, cursor: { score: String(approval.expiresAt), id: approval.approvalId } }))
    .filter((entry) => after === undefined || comesAfter(entry.cursor, after))
    .sort((a, b) => (comesAfter(b.cursor, a.cursor) ? -1 : comesAfter(a.cursor, b.cursor) ? 1 : 0));
  const approvals = entries.slice(0, limit).map((entry) => entry.approval);
  return entries.length > limit
    ? { approvals, nextCursor: encodeCursor(entries[limit - 1]!.cursor) }
    : { approvals };
}

/** Whether `entry` comes after `cursor` in a pending index (ascending score, then id). */
function comesAfter(entry: ICursor, cursor: ICursor): boolean {
  const [entryScore, cursorScore] = [Number(entry.score), Number(cursor.score)];
  return entryScore > cursorScore || (entryScore === cursorScore && entry.id > cursor.id);
}

/** The indexes that hold every approval the query can match (any one of them is enough). */
function candidateIndexes(
  state: TApprovalIndexState,
  status: TApprovalListStatus,
  query: IApprovalQuery,
): Array<[TApprovalIndexDimension, string?]> {
  const candidates: Array<[TApprovalIndexDimension, string?]> = [];
  // A run's pending approvals have no index (see pageOfRun): only its decided ones do.
  if (state === "decided" && query.runId !== undefined) candidates.push(["run", query.runId]);
  if (query.userId !== undefined) candidates.push(["user", query.userId]);
  if (query.tool !== undefined) candidates.push(["tool", query.tool]);
  if (query.tenant !== undefined) candidates.push(["tenant", query.tenant]);
  if (state === "decided" && query.approver !== undefined) candidates.push(["approver", query.approver]);
  if (state === "decided" && status !== "decided") candidates.push(["status", status]);
  if (candidates.length === 0) candidates.push(["all"]);
  return candidates;
}

async function smallestIndex(
  redis: ITollgateRedis,
  keys: IKeys,
  state: TApprovalIndexState,
  candidates: Array<[TApprovalIndexDimension, string?]>,
): Promise<string> {
  const indexKeys = candidates.map(([dimension, value]) => keys.approvalIndex(state, dimension, value));
  if (indexKeys.length === 1) return indexKeys[0]!;
  const pipeline = redis.pipeline();
  for (const key of indexKeys) pipeline.zcard(key);
  const sizes = ((await pipeline.exec()) ?? []).map(([, size]) => Number(size ?? 0));
  let smallest = 0;
  for (const [position, size] of sizes.entries()) if (size < sizes[smallest]!) smallest = position;
  return indexKeys[smallest]!;
}

/** Every filter, checked on the record itself: the index read only narrows where to look. */
function matches(approval: IApproval, status: TApprovalListStatus, query: IApprovalQuery): boolean {
  if (status === "pending" ? approval.status !== "pending" : approval.status === "pending") return false;
  if (status !== "pending" && status !== "decided" && approval.status !== status) return false;
  if (query.tenant !== undefined && tenantOf(approval) !== query.tenant) return false;
  if (query.runId !== undefined && approval.runId !== query.runId) return false;
  if (query.tool !== undefined && approval.toolName !== query.tool) return false;
  if (query.userId !== undefined && approval.userContext.userId !== query.userId) return false;
  if (
    query.userIdContains !== undefined &&
    !containsFolded(approval.userContext.userId, query.userIdContains)
  )
    return false;
  if (query.approver !== undefined && approval.decision?.approver !== query.approver) return false;
  const at = status === "pending" ? approval.requestedAt : (approval.decision?.decidedAt ?? 0);
  if (query.since !== undefined && at < query.since) return false;
  if (query.until !== undefined && at > query.until) return false;
  return true;
}

function containsFolded(text: string, part: string): boolean {
  return text.toLowerCase().includes(part.toLowerCase());
}

function encodeCursor(cursor: ICursor): string {
  return Buffer.from(JSON.stringify([cursor.score, cursor.id])).toString("base64url");
}

function decodeCursor(text: string): ICursor {
  try {
    const [score, id] = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as unknown[];
    if (typeof score === "string" && /^-?\d+(\.\d+)?$/.test(score) && typeof id === "string") {
      return { score, id };
    }
  } catch {
    // Falls through to the refusal.
  }
  throw new TollgateError("TG_BAD_REQUEST", "The cursor is not one a listing returned.", {
    cursor: text.slice(0, 64),
  });
}
