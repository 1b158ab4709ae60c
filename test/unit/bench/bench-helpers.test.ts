import { describe, expect, it } from "vitest";
import { alternate, rotated, withInFlight } from "../../../bench/lib/alternate.js";
import { markdownTable } from "../../../bench/lib/markdown-table.js";
import { percentile, summarize } from "../../../bench/lib/percentiles.js";

describe("bench percentiles", () => {
  it.each([
    { values: [1, 2, 3, 4], fraction: 0.5, expected: 2 },
    { values: [1, 2, 3, 4, 5], fraction: 0.5, expected: 3 },
    { values: Array.from({ length: 100 }, (_, index) => index + 1), fraction: 0.99, expected: 99 },
    { values: Array.from({ length: 10 }, (_, index) => index + 1), fraction: 0.99, expected: 10 },
    { values: [7], fraction: 0.99, expected: 7 },
  ])("nearest rank: p$fraction of $values.length values is $expected", ({ values, fraction, expected }) => {
    expect(percentile(values, fraction)).toBe(expected);
  });

  it("summarizes unsorted samples", () => {
    expect(summarize([3, 1, 2])).toEqual({ samples: 3, p50: 2, p99: 3, mean: 2 });
  });
});

describe("bench alternation", () => {
  it("rotates the order by one each turn", () => {
    expect([0, 1, 2, 3].map((turn) => rotated(["a", "b", "c"], turn).join(""))).toEqual([
      "abc",
      "bca",
      "cab",
      "abc",
    ]);
  });

  it("runs every contender each turn, in rotated order, and drops the warm-up turns", async () => {
    const calls: string[] = [];
    const results = await alternate(
      [{ name: "a" }, { name: "b" }],
      { warmupTurns: 1, turns: 2 },
      async (contender, turn) => {
        calls.push(`${contender.name}${turn}`);
        return turn;
      },
    );
    expect(calls).toEqual(["a0", "b0", "b1", "a1", "a2", "b2"]);
    expect(results).toEqual(
      new Map([
        ["a", [1, 2]],
        ["b", [1, 2]],
      ]),
    );
  });

  it("keeps at most the given number in flight and runs every index once", async () => {
    let running = 0;
    let peak = 0;
    const seen: number[] = [];
    await withInFlight(20, 4, async (index) => {
      running++;
      peak = Math.max(peak, running);
      await Promise.resolve();
      seen.push(index);
      running--;
    });
    expect(peak).toBe(4);
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, index) => index));
  });
});

describe("bench tables", () => {
  it("prints missing numbers as a dash", () => {
    expect(markdownTable(["a", "b"], [[1, undefined]])).toBe("| a | b |\n|---|---|\n| 1 | – |");
  });
});
