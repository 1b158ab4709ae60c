import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { base36Of128Bits, randomId } from "../../../src/producer/random-id.js";
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

  it("prints 128 bits exactly as BigInt does, from all zeros to all ones", () => {
    const edges = [
      Buffer.alloc(16),
      Buffer.alloc(16, 0xff),
      Buffer.from("00000000000000000000000000000001", "hex"),
    ];
    for (const bytes of [...edges, ...Array.from({ length: 500 }, () => randomBytes(16))]) {
      const expected = BigInt(`0x${bytes.toString("hex")}`)
        .toString(36)
        .padStart(25, "0");
      expect(base36Of128Bits(bytes)).toBe(expected);
    }
    expect(base36Of128Bits(Buffer.alloc(16))).toBe("0".repeat(25));
  });

  it("reads the 16 bytes at an offset (ids come from a shared pool of random bytes)", () => {
    const bytes = randomBytes(48);
    expect(base36Of128Bits(bytes, 16)).toBe(base36Of128Bits(bytes.subarray(16, 32)));
  });

  it("stays unique across refills of the pool (more than 256 ids)", () => {
    const many = Array.from({ length: 5_000 }, () => randomId());
    expect(new Set(many).size).toBe(many.length);
  });

  it("ids generated before it (UUIDs) still name the unpartitioned layout", () => {
    expect(partitionNamedBy("tg", "run_0cff6556-5d8e-4a6a-91aa-3ba858ac7920").name).toBe("base");
  });
});
