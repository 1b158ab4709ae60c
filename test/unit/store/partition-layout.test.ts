import { describe, expect, it } from "vitest";
import {
  basePartition,
  clusterSlotCount,
  hashIndexOf,
  hashSlotOf,
  layoutPartitions,
  partitionByName,
  partitionNamedBy,
  partitionOf,
} from "../../../src/store/index.js";

describe("hash slots", () => {
  it("are Redis Cluster's: CRC16/XMODEM mod 16384, of the hash tag when there is one", () => {
    // The check value of CRC16/XMODEM, and keys whose slots Redis's documentation gives.
    expect(hashSlotOf("123456789")).toBe(0x31c3);
    expect(hashSlotOf("foo")).toBe(12182);
    expect(hashSlotOf("{user1000}.following")).toBe(hashSlotOf("user1000"));
    expect(hashSlotOf("foo{}{bar}")).toBe(hashSlotOf("foo{}{bar}"));
    expect(hashSlotOf("foo{}{bar}")).not.toBe(hashSlotOf("bar"));
  });
});

describe("partition layout", () => {
  it("1 is the unpartitioned layout: the configured prefix, ids without a partition", () => {
    expect(layoutPartitions("tollgate", 1)).toEqual([basePartition("tollgate")]);
    expect(basePartition("{tollgate}")).toMatchObject({ prefix: "{tollgate}", runIdPrefix: "run_" });
  });

  it.each([2, 3, 4, 6, 8])(
    "puts each of %i partitions in its own range of slots, so an even split spreads them",
    (count) => {
      const partitions = layoutPartitions("{tollgate}", count);
      partitions.forEach((partition, index) => {
        const slot = hashSlotOf(`${partition.prefix}:run:x`);
        expect(slot).toBeGreaterThanOrEqual(Math.floor((index * clusterSlotCount) / count));
        expect(slot).toBeLessThan(Math.floor(((index + 1) * clusterSlotCount) / count));
      });
      // Three masters split evenly get one of three partitions each.
      if (count === 3) {
        const masters = partitions.map((partition) =>
          Math.floor(hashSlotOf(partition.prefix) / (clusterSlotCount / 3)),
        );
        expect(new Set(masters).size).toBe(3);
      }
    },
  );

  it("derives partition prefixes from the configured one, with or without a hash tag", () => {
    expect(partitionOf("{tollgate}", 1, 3).prefix).toMatch(/^\{tollgate-1of3(\.\d+)?\}$/);
    expect(partitionOf("tollgate", 0, 2).prefix).toMatch(/^\{tollgate-0of2(\.\d+)?\}$/);
    expect(partitionOf("acme{tg}x", 2, 4).prefix).toMatch(/^acme\{tg-2of4(\.\d+)?\}x$/);
  });

  it("reads the partition from any id of a run (run, call, approval) and from generated thread ids", () => {
    const partition = partitionOf("{tollgate}", 2, 3);
    const runId = `${partition.runIdPrefix}0b6f7c1e-0000-4000-8000-000000000000`;
    for (const id of [runId, `${runId}-s0-c1`, `${runId}-s0-c1-approval`, `${partition.threadIdPrefix}abc`]) {
      expect(partitionNamedBy("{tollgate}", id)).toEqual(partition);
    }
    for (const id of [
      "run_0b6f7c1e-0000",
      `run_${"a".repeat(32)}`,
      "thread-of-a-customer",
      "run_p3of3_x",
      "run_p0of1_x",
    ]) {
      expect(partitionNamedBy("{tollgate}", id).name).toBe("base");
    }
  });

  it("names partitions as --partitions takes them", () => {
    expect(partitionByName("t", "base", 3)?.name).toBe("base");
    expect(partitionByName("t", "2", 3)?.name).toBe("2of3");
    expect(partitionByName("t", "4of5", 3)?.name).toBe("4of5");
    expect(partitionByName("t", "0", 1)?.name).toBe("base");
    expect(partitionByName("t", "3", 3)).toBeUndefined();
    expect(partitionByName("t", "x", 3)).toBeUndefined();
  });

  it("hashes thread ids stably and evenly", () => {
    const counts = [0, 0, 0];
    for (let index = 0; index < 3000; index++) counts[hashIndexOf(`thread-${index}`, 3)]! += 1;
    for (const count of counts) expect(count).toBeGreaterThan(900);
    expect(hashIndexOf("thread-42", 3)).toBe(hashIndexOf("thread-42", 3));
  });
});
