import { describe, expect, it } from "vitest";
import { jsonTextNestsDeeperThan } from "../../../src/tools/index.js";

describe("jsonTextNestsDeeperThan", () => {
  it.each([
    ["flat object", '{"a":1}', 1, false],
    ["two levels against one", '{"a":[1]}', 1, true],
    ["brackets inside strings do not count", '{"a":"[[[[{{{{"}', 1, false],
    ["an escaped quote does not end the string", '{"a":"\\"[[["}', 1, false],
    ["6,000 deep", `${"[".repeat(6_000)}${"]".repeat(6_000)}`, 64, true],
    ["exactly the limit", `${"[".repeat(64)}${"]".repeat(64)}`, 64, false],
    ["not JSON at all", "hello", 64, false],
  ])("%s", (_label, text, maxDepth, deeper) => {
    expect(jsonTextNestsDeeperThan(text, maxDepth)).toBe(deeper);
  });
});
