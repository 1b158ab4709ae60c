import { randomFillSync } from "node:crypto";

/** Characters of a random id: 128 bits in base 36 need 25 (36^25 > 2^128). */
const randomIdLength = 25;
const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz";
/** Bytes of randomness fetched at once: one call to the system's generator serves 256 ids. */
const poolBytes = 4_096;
const pool = Buffer.alloc(poolBytes);
let poolOffset = poolBytes;

/**
 * The random part of a run or thread id: 128 random bits in base 36 (`0-9a-z`), 25 characters. Why not a
 * UUID: an id is repeated in about forty keys, members and payloads of a run, and a parked run holds them
 * all for as long as it waits, so 11 characters fewer is about 0.4 KB of Redis per parked run; with more
 * random bits than a UUID's 122. Lower case and no `_`: ids stay equal under case-insensitive collations,
 * and the random part can never read as a partition token (`p1of3_`).
 *
 * The bytes come from a pool filled by the system's generator (as `crypto.randomUUID` does), and are
 * printed by long division: a generator call per id and a BigInt to print it took 6.5 µs per id in a
 * loop (1.6 µs this way), and 37 µs of every run's CPU (two ids) in a profile at 50 runs in flight.
 */
export function randomId(): string {
  if (poolOffset === poolBytes) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const id = base36Of128Bits(pool, poolOffset);
  poolOffset += 16;
  return id;
}

/**
 * The 16 bytes at `offset`, read as one big-endian 128-bit number, in base 36 padded to 25 digits: what
 * `BigInt("0x" + hex).toString(36).padStart(25, "0")` prints. Long division on four 32-bit words; every
 * intermediate stays below 36 × 2^32, well within a double's exact integers.
 */
export function base36Of128Bits(bytes: Uint8Array, offset = 0): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, 16);
  const words = [view.getUint32(0), view.getUint32(4), view.getUint32(8), view.getUint32(12)];
  const digits = new Array<string>(randomIdLength);
  for (let position = randomIdLength - 1; position >= 0; position--) {
    let remainder = 0;
    for (let index = 0; index < 4; index++) {
      const current = remainder * 0x1_0000_0000 + words[index]!;
      words[index] = Math.floor(current / 36);
      remainder = current % 36;
    }
    digits[position] = alphabet[remainder]!;
  }
  return digits.join("");
}
