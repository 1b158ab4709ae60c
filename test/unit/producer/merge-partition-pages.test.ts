import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TollgateError } from "../../../src/errors/index.js";
import { type IPartitionSource, mergePartitionPages } from "../../../src/producer/merge-partition-pages.js";

/** A partition listing sorted numbers with a cursor: the last number returned. */
function source(name: string, values: number[]): IPartitionSource<number> {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    name,
    async read(cursor, limit) {
      const start = cursor === undefined ? 0 : sorted.findIndex((value) => value > Number(cursor));
      const items = start < 0 ? [] : sorted.slice(start, start + limit);
      const more = start >= 0 && start + limit < sorted.length;
      return { items, next: more ? String(items.at(-1)) : undefined };
    },
  };
}

describe("merging partition pages", () => {
  it("pages through every item once, in order, whatever the spread and the page size", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uniqueArray(fc.integer({ min: 0, max: 10_000 }), { maxLength: 40 }), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.integer({ min: 1, max: 15 }),
        async (partitions, limit) => {
          // Distinct values across partitions, so the expected order is unique.
          const spread = partitions.map((values, index) => values.map((value) => value * 4 + index));
          const sources = spread.map((values, index) => source(`p${index}`, values));
          const seen: number[] = [];
          let cursor: string | undefined;
          for (let page = 0; page < 1000; page++) {
            const merged = await mergePartitionPages({
              sources,
              limit,
              compare: (a, b) => a - b,
              cursor,
            });
            expect(merged.items.length).toBeLessThanOrEqual(limit);
            seen.push(...merged.items);
            cursor = merged.cursor;
            if (cursor === undefined) break;
          }
          expect(seen).toEqual(spread.flat().sort((a, b) => a - b));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("refuses a cursor it did not give", async () => {
    const call = mergePartitionPages({
      sources: [source("p0", [1])],
      limit: 1,
      compare: (a, b) => a - b,
      cursor: "not-a-cursor",
    });
    await expect(call).rejects.toSatisfy((error) => TollgateError.is(error, "TG_BAD_REQUEST"));
  });
});
