import { describe, expect, it } from "vitest";
import { schemaPathOfPattern } from "../../../src/tools/schema-pattern-path.js";

describe("schemaPathOfPattern", () => {
  it.each<[string, unknown, string, string | undefined]>([
    ["the root's pattern", { pattern: "x" }, "x", "/pattern"],
    [
      "a nested one, in document order",
      { anyOf: [{ pattern: "y" }, { items: { pattern: "x" } }] },
      "x",
      "/anyOf/1/items/pattern",
    ],
    [
      "a key with / and ~, escaped",
      { patternProperties: { "a/b~": {} } },
      "a/b~",
      "/patternProperties/a~1b~0",
    ],
    [
      "not in data keywords",
      { default: { pattern: "x" }, enum: [{ pattern: "x" }], examples: [{ pattern: "x" }] },
      "x",
      undefined,
    ],
    [
      "a property named pattern is a schema, not a pattern",
      { properties: { pattern: { type: "string" } } },
      "x",
      undefined,
    ],
  ])("%s", (_case, schema, pattern, path) => {
    expect(schemaPathOfPattern(schema, pattern)).toBe(path);
  });
});
