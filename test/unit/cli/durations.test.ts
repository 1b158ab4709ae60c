import { describe, expect, it } from "vitest";
import { formatAge, formatDuration } from "../../../src/cli/output/durations.js";

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;

describe("durations in human units", () => {
  it.each([
    [0, "0 ms"],
    [12, "12 ms"],
    [999.7, "999 ms"],
    [1000, "1 s"],
    [1234, "1.2 s"],
    [9999, "9.9 s"],
    [10_000, "10 s"],
    [42_900, "42 s"],
    [60_000, "1 min"],
    [3 * minute + 4 * second, "3 min 4 s"],
    [hour - 1, "59 min 59 s"],
    [hour, "1 h"],
    [2 * hour + 5 * minute + 59 * second, "2 h 5 min"],
    [24 * hour - 26_000, "23 h 59 min"],
    [24 * hour, "1 d"],
    [3 * 24 * hour + 4 * hour + 30 * minute, "3 d 4 h"],
    [-5, "0 ms"],
  ])("%d ms reads %s", (milliseconds, text) => {
    expect(formatDuration(milliseconds)).toBe(text);
  });

  const now = Date.UTC(2026, 2, 14, 9, 0, 0);
  it.each([
    [now - 3 * minute - 4 * second, "3 min 4 s ago"],
    [now + 2 * hour + 5 * minute, "in 2 h 5 min"],
    [now + 400, "now"],
    [now - 999, "now"],
    [undefined, "-"],
  ])("a time %s from now reads %s", (epochMs, text) => {
    expect(formatAge(epochMs, now)).toBe(text);
  });
});
