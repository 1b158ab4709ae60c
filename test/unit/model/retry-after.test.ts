import { describe, expect, it } from "vitest";
import { retryAfterMsOf } from "../../../src/model/index.js";

const now = Date.parse("2026-01-01T00:00:00Z");

describe("retryAfterMsOf: how long a 429 asks to wait", () => {
  it.each<[string, Record<string, string>, number | undefined]>([
    ["retry-after-ms", { "retry-after-ms": "1500" }, 1_500],
    ["retry-after-ms wins over retry-after", { "retry-after-ms": "200", "retry-after": "9" }, 200],
    ["retry-after in seconds", { "retry-after": "2" }, 2_000],
    ["retry-after with a fraction", { "retry-after": "0.25" }, 250],
    ["retry-after as an HTTP date", { "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }, 5_000],
    ["a date in the past", { "retry-after": "Wed, 31 Dec 2025 23:59:00 GMT" }, undefined],
    ["zero", { "retry-after": "0" }, undefined],
    ["garbage", { "retry-after": "soon" }, undefined],
    ["no header", {}, undefined],
  ])("%s", (_name, headers, expected) => {
    expect(retryAfterMsOf(new Headers(headers), now)).toBe(expected);
  });
});
