import { describe, expect, it } from "vitest";
import { usageDayOf } from "../../../src/store/usage-store.js";

/** usageDayOf keeps the day it answered last (issue 26): the answers are those of a Date each time. */
describe("usageDayOf", () => {
  it("answers the UTC day of each time, across midnights and back", () => {
    const midnight = Date.UTC(2026, 11, 2);
    const times = [
      midnight - 1,
      midnight,
      midnight + 1,
      midnight + 86_399_999,
      midnight - 1,
      midnight + 86_400_000,
      Date.UTC(1969, 11, 31, 23, 59, 59, 999),
      0,
      Date.UTC(2024, 1, 29, 12),
      Date.UTC(2024, 1, 29, 12),
    ];
    for (const at of times) expect(usageDayOf(at)).toBe(new Date(at).toISOString().slice(0, 10));
  });

  it("refuses a time that is not one, as a Date does", () => {
    expect(() => usageDayOf(Number.NaN)).toThrow(RangeError);
  });
});
