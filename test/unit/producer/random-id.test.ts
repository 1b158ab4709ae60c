import { describe, expect, it } from "vitest";
import { randomId } from "../../../src/producer/random-id.js";
import { namesPartition, partitionNamedBy } from "../../../src/store/index.js";

/**
 * Issue 14: run and thread ids are repeated in about forty keys, members and payloads of a run, so their
 * random part is 25 base-36 characters (128 bits) instead of a 36-character UUID.
 */
describe("the random part of generated ids", () => {
  const samples = Array.from({ length: 2_000 }, () => randomId());

  it("is 25 characters of 0-9a-z: equal under case-insensitive collations, safe in keys and URLs", () => {
    for (const id of samples) expect(id).toMatch(/^[0-9a-z]{25}$/);
  });

  it("does not repeat, and uses the whole alphabet", () => {
    expect(new Set(samples).size).toBe(samples.length);
    expect(new Set(samples.join("")).size).toBe(36);
  });

  it("never reads as a partition token, even when it starts like one (no `_` in it)", () => {
    for (const id of samples) expect(namesPartition(`run_${id}`)).toBe(false);
    expect(partitionNamedBy("tg", "run_p1of3x0000000000000000000").name).toBe("base");
  });

  it("ids generated before it (UUIDs) still name the unpartitioned layout", () => {
    expect(partitionNamedBy("tg", "run_0cff6556-5d8e-4a6a-91aa-3ba858ac7920").name).toBe("base");
  });
});
