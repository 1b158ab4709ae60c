import { TollgateError } from "../errors/index.js";

/**
 * Listings over partitions: each partition lists its own records from its own index, and the pages are
 * merged here. A merged page is what one index would have given: the first `limit` items in the
 * listing's order over every partition. Its cursor holds one cursor per partition, each placed just
 * after the last item taken from that partition (the partition's own cursor, opaque here: read again
 * with as many items as were taken), so the next page loses and repeats nothing.
 */

/** One partition's page: items in the listing's order, and where to continue. */
export interface ISourcePage<TItem> {
  items: TItem[];
  /** The cursor after the last item of the page; undefined when the partition has nothing more. */
  next: string | undefined;
}

export interface IPartitionSource<TItem> {
  /** The partition's name (stable: it keys the merged cursor). */
  name: string;
  /** A page of at most `limit` items from `cursor` (undefined: the start). */
  read(cursor: string | undefined, limit: number): Promise<ISourcePage<TItem>>;
}

export interface IMergedPage<TItem> {
  items: TItem[];
  /** Undefined when every partition is exhausted. */
  cursor: string | undefined;
}

/** Per partition: its cursor, `null` once exhausted; a partition not named starts from the beginning. */
type TMergedCursor = Record<string, string | null>;

export async function mergePartitionPages<TItem>(args: {
  sources: readonly IPartitionSource<TItem>[];
  limit: number;
  /** The listing's order (negative: `a` first). Ties keep partition order. */
  compare: (a: TItem, b: TItem) => number;
  cursor?: string | undefined;
}): Promise<IMergedPage<TItem>> {
  const positions = decodeCursor(args.cursor);
  const pages = await Promise.all(
    args.sources.map(async (source) => {
      const position = positions[source.name];
      if (position === null) return { source, page: { items: [], next: undefined } as ISourcePage<TItem> };
      return { source, page: await source.read(position, args.limit) };
    }),
  );
  const tagged = pages.flatMap(({ source, page }, order) =>
    page.items.map((item, index) => ({ item, source: source.name, order, index })),
  );
  tagged.sort((a, b) => args.compare(a.item, b.item) || a.order - b.order || a.index - b.index);
  const taken = tagged.slice(0, args.limit);
  const next: TMergedCursor = {};
  let more = false;
  for (const { source, page } of pages) {
    const fromSource = taken.filter((entry) => entry.source === source.name);
    const previous = positions[source.name];
    if (fromSource.length === page.items.length) {
      next[source.name] = page.next ?? null;
      if (page.next !== undefined) more = true;
    } else {
      // Taken in part: the partition's own cursor after exactly the items taken, read again with that
      // many (cursors are the store's, opaque here). Items are left on this page: there is more.
      more = true;
      if (fromSource.length === 0) {
        if (previous !== undefined) next[source.name] = previous;
      } else {
        next[source.name] = (await source.read(previous ?? undefined, fromSource.length)).next ?? null;
      }
    }
  }
  return { items: taken.map((entry) => entry.item), cursor: more ? encodeCursor(next) : undefined };
}

function encodeCursor(cursor: TMergedCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

/** A cursor this listing did not give is refused (TG_BAD_REQUEST), never read as "from the start". */
function decodeCursor(text: string | undefined): TMergedCursor {
  if (text === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  const valid =
    typeof parsed === "object" &&
    parsed !== null &&
    !Array.isArray(parsed) &&
    Object.values(parsed).every((value) => value === null || typeof value === "string");
  if (!valid) throw new TollgateError("TG_BAD_REQUEST", "The cursor is not one this listing gave.");
  return parsed as TMergedCursor;
}
