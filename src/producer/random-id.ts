import { randomBytes } from "node:crypto";

/** Characters of a random id: 128 bits in base 36 need 25 (36^25 > 2^128). */
const randomIdLength = 25;

/**
 * The random part of a run or thread id: 128 random bits in base 36 (`0-9a-z`), 25 characters. Why not a
 * UUID: an id is repeated in about forty keys, members and payloads of a run, and a parked run holds them
 * all for as long as it waits, so 11 characters fewer is about 0.4 KB of Redis per parked run; with more
 * random bits than a UUID's 122. Lower case and no `_`: ids stay equal under case-insensitive collations,
 * and the random part can never read as a partition token (`p1of3_`).
 */
export function randomId(): string {
  return BigInt(`0x${randomBytes(16).toString("hex")}`)
    .toString(36)
    .padStart(randomIdLength, "0");
}
