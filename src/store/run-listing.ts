import {
  defaultTenant,
  isTerminal,
  reportedStatusOf,
  type TRunState,
  type TRunStatus,
  tenantOf,
  toolsCalledBy,
} from "../contracts/index.js";
import { TollgateError } from "../errors/index.js";
import type { IKeys } from "./keys.js";
import type { ITollgateRedis } from "./redis-client.js";

export interface IRunQuery {
  /** Only this tenant's runs; absent: every tenant's (a principal that sees them all). */
  tenant?: string;
  /** As listings show it: `waiting` is a run with a call waiting for a person (parked for an approval). */
  status?: TRunStatus;
  userId?: string;
  threadId?: string;
  /** Runs whose model called this tool. */
  tool?: string;
  /** Who created the run (the token's subject). */
  createdBy?: string;
  /** Runs created by this schedule's ticks. */
  scheduleId?: string;
  /** Epoch ms, inclusive: runs created at or after. */
  since?: number;
  /** Epoch ms, inclusive: runs created at or before. */
  until?: number;
  /** @defaultValue 50 */
  limit?: number;
  /** From the previous page's `nextCursor`. */
  cursor?: string;
}

/**
 * Where a listing is: a run's creation time and id. Every index is in this one order (newest first, ties
 * by id descending) and a run's place never moves, so one position holds across indexes and partitions:
 * whatever is created or finishes meanwhile, the next page starts exactly after it.
 */
export interface IRunPosition {
  score: number;
  id: string;
}

/** One partition's read: matching runs in listing order, and how far it is exact. */
export interface IRunIndexRead {
  runs: Array<{ position: IRunPosition; state: TRunState }>;
  /** Every matching run up to here (inclusive) was returned; absent: up to the end of the listing. */
  through?: IRunPosition;
}

/** Index entries read per index per round trip; entries read at most per page before it stops short. */
const minBatch = 50;
const maxScannedPerPage = 5_000;

/**
 * Reads the runs that match `query` after `after` from one partition's indexes, up to `limit`. Every
 * filter is exact: the smallest index (or union of indexes) that holds every run the query can match is
 * read in rank order from the position (O(log n) however deep), and each filter is checked on the run
 * itself. A read whose filters match few of the entries stops after `maxScannedPerPage` with `through`
 * where it got to, so a page costs a bounded amount whatever the data.
 */
export async function readRunIndexes(
  redis: ITollgateRedis,
  keys: IKeys,
  query: IRunQuery,
  after: IRunPosition | undefined,
  limit: number,
  load: (runIds: string[]) => Promise<Array<TRunState | undefined>>,
): Promise<IRunIndexRead> {
  const indexKeys = await smallestCandidate(redis, candidatesOf(keys, query));
  const batch = Math.max(minBatch, limit);
  const minScore = query.since !== undefined ? String(Math.ceil(query.since)) : "-inf";
  const maxScore = query.until !== undefined ? String(Math.floor(query.until)) : "+inf";
  const runs: IRunIndexRead["runs"] = [];
  let position = after;
  let scanned = 0;
  for (;;) {
    const sections = parseSections(
      await redis.tgRunIndexPage(
        String(indexKeys.length),
        ...indexKeys,
        position !== undefined ? String(position.score) : "",
        position?.id ?? "",
        minScore,
        maxScore,
        String(batch),
      ),
    );
    // A full section is exact only to its last entry: past the earliest such cut, another index may
    // hold runs not read yet.
    let cut: IRunPosition | undefined;
    for (const section of sections) {
      const last = section.at(-1);
      if (section.length === batch && last && (cut === undefined || precedes(cut, last))) cut = last;
    }
    const entries = mergeUnique(sections).filter((entry) => cut === undefined || !precedes(cut, entry));
    const states = await load(entries.map((entry) => entry.id));
    for (const [at, entry] of entries.entries()) {
      scanned += 1;
      const state = states[at];
      if (state && matches(state, query)) runs.push({ position: entry, state });
      if (runs.length === limit) {
        const atEnd = cut === undefined && at === entries.length - 1;
        return atEnd ? { runs } : { runs, through: entry };
      }
    }
    if (cut === undefined) return { runs };
    position = cut;
    if (scanned >= maxScannedPerPage) return { runs, through: cut };
  }
}

/** Whether `a` comes before `b` in the listing (newer, or as new with a greater id). */
export function precedes(a: IRunPosition, b: IRunPosition): boolean {
  return a.score > b.score || (a.score === b.score && a.id > b.id);
}

export function encodeRunCursor(position: IRunPosition): string {
  return Buffer.from(JSON.stringify([position.score, position.id])).toString("base64url");
}

/** A cursor this listing did not give is refused (TG_BAD_REQUEST), never read as "from the start". */
export function decodeRunCursor(text: string): IRunPosition {
  try {
    const [score, id] = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as unknown[];
    if (typeof score === "number" && Number.isSafeInteger(score) && typeof id === "string" && id !== "") {
      return { score, id };
    }
  } catch {
    // Falls through to the refusal.
  }
  throw new TollgateError("TG_BAD_REQUEST", "The cursor is not one a run listing returned.", {
    cursor: text.slice(0, 64),
  });
}

/**
 * The index sets that hold every run the query can match (any one set is enough; a set is read as the
 * union of its indexes). Runs of every tenant are in the partition's `all` index and the default
 * tenant's (see runIndexesOfEveryTenant).
 */
function candidatesOf(keys: IKeys, query: IRunQuery): string[][] {
  const { tenant } = query;
  if (tenant === undefined) return [runIndexesOfEveryTenant(keys)];
  const candidates: string[][] = [[keys.runIndex("tenant", tenant)]];
  if (query.userId !== undefined) candidates.push([keys.runIndex("user", tenant, query.userId)]);
  if (query.threadId !== undefined) candidates.push([keys.runIndex("thread", tenant, query.threadId)]);
  if (query.createdBy !== undefined) candidates.push([keys.runIndex("created-by", tenant, query.createdBy)]);
  if (query.scheduleId !== undefined) candidates.push([keys.runIndex("schedule", tenant, query.scheduleId)]);
  if (query.status !== undefined) {
    // Final statuses are indexed when the run finishes; a run not finished is in the unfinished index.
    candidates.push([
      isTerminal({ status: query.status })
        ? keys.runIndex("status", tenant, query.status)
        : keys.runIndex("unfinished", tenant),
    ]);
  }
  if (query.tool !== undefined) {
    // A finished run is indexed by the tools it called; one still going is among the unfinished.
    candidates.push([keys.runIndex("tool", tenant, query.tool), keys.runIndex("unfinished", tenant)]);
  }
  return candidates;
}

/**
 * The indexes that hold every tenant's runs: the partition's `all` holds the runs of named tenants, the
 * default tenant's own index the default tenant's (a partition without tenants writes one index, not two
 * of the same runs). `all` also holds default-tenant runs created before: the union lists each once.
 */
export function runIndexesOfEveryTenant(keys: IKeys): string[] {
  return [keys.runIndex("all"), keys.runIndex("tenant", defaultTenant)];
}

async function smallestCandidate(redis: ITollgateRedis, candidates: string[][]): Promise<string[]> {
  if (candidates.length === 1) return candidates[0]!;
  const sizes = await Promise.all(
    candidates.map(async (indexKeys) => {
      const cards = await Promise.all(indexKeys.map((key) => redis.zcard(key)));
      return cards.reduce((sum, size) => sum + size, 0);
    }),
  );
  let smallest = 0;
  for (const [at, size] of sizes.entries()) if (size < sizes[smallest]!) smallest = at;
  return candidates[smallest]!;
}

function parseSections(reply: Array<string | number>): IRunPosition[][] {
  const sections: IRunPosition[][] = [];
  let at = 0;
  while (at < reply.length) {
    const count = Number(reply[at]);
    const section: IRunPosition[] = [];
    for (let entry = 0; entry < count; entry++) {
      section.push({ id: String(reply[at + 1 + entry * 2]), score: Number(reply[at + 2 + entry * 2]) });
    }
    sections.push(section);
    at += 1 + count * 2;
  }
  return sections;
}

function mergeUnique(sections: IRunPosition[][]): IRunPosition[] {
  if (sections.length === 1) return sections[0]!;
  const byId = new Map<string, IRunPosition>();
  for (const section of sections) for (const entry of section) byId.set(entry.id, entry);
  return [...byId.values()].sort((a, b) => (precedes(a, b) ? -1 : precedes(b, a) ? 1 : 0));
}

/** Every filter, checked on the run itself: the index read only narrows where to look. */
function matches(state: TRunState, query: IRunQuery): boolean {
  const { request } = state;
  if (query.tenant !== undefined && tenantOf(request) !== query.tenant) return false;
  // As a listing shows it: `waiting` while a call waits for a person, no longer `running`.
  if (query.status !== undefined && reportedStatusOf(state) !== query.status) return false;
  if (query.userId !== undefined && request.userContext.userId !== query.userId) return false;
  if (query.threadId !== undefined && state.threadId !== query.threadId) return false;
  if (query.createdBy !== undefined && request.createdBy !== query.createdBy) return false;
  if (query.scheduleId !== undefined && request.scheduleId !== query.scheduleId) return false;
  if (query.tool !== undefined && !toolsCalledBy(state).includes(query.tool)) return false;
  if (query.since !== undefined && state.createdAt < query.since) return false;
  if (query.until !== undefined && state.createdAt > query.until) return false;
  return true;
}
