import { describe, expect, it } from "vitest";
import { forbiddenJsonKey } from "../../../src/api/http/forbidden-json-key.js";

describe("forbiddenJsonKey", () => {
  it.each([
    ['{"__proto__":{}}', { key: "__proto__", path: "__proto__" }],
    ['{"a":[1,{"b":{"__proto__":null}}]}', { key: "__proto__", path: "a.1.b.__proto__" }],
    [
      '{"x":{"constructor":{"prototype":{}}}}',
      { key: "constructor.prototype", path: "x.constructor.prototype" },
    ],
  ])("finds the key in %s", (text, found) => {
    expect(forbiddenJsonKey(JSON.parse(text))).toEqual(found);
  });

  it.each([
    '{"proto":1,"constructor":"a","prototype":{}}',
    '{"constructor":{"name":"x"}}',
    '[1,"__proto__",null]',
    "42",
  ])("finds none in %s", (text) => {
    expect(forbiddenJsonKey(JSON.parse(text))).toBeUndefined();
  });

  it("walks a body nested 200,000 deep once, its path cut to the last 32 segments", () => {
    const depth = 200_000;
    const text = `${'{"a":'.repeat(depth)}{"__proto__":1}${"}".repeat(depth)}`;
    const found = forbiddenJsonKey(JSON.parse(text));
    expect(found?.key).toBe("__proto__");
    expect(found?.path).toBe(`…${"a.".repeat(31)}__proto__`);
  });
});
