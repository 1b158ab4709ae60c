import { describe, expect, it } from "vitest";
import { diffInputs } from "../../../src/contracts/index.js";

describe("diffInputs: JSON-pointer changes from the original input to the edit", () => {
  it.each<[string, unknown, unknown, ReturnType<typeof diffInputs>]>([
    ["equal inputs, keys in another order", { a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }, []],
    [
      "a changed field",
      { amount: 40, to: "x" },
      { amount: 20, to: "x" },
      [{ op: "replace", path: "/amount", from: 40, value: 20 }],
    ],
    [
      "added and removed fields",
      { a: 1 },
      { b: 2 },
      [
        { op: "remove", path: "/a", from: 1 },
        { op: "add", path: "/b", value: 2 },
      ],
    ],
    [
      "nested objects",
      { order: { id: "o1", lines: 2 } },
      { order: { id: "o2", lines: 2 } },
      [{ op: "replace", path: "/order/id", from: "o1", value: "o2" }],
    ],
    [
      "arrays grow and shrink by index, removals from the end",
      { items: [1, 2, 3] },
      { items: [1] },
      [
        { op: "remove", path: "/items/2", from: 3 },
        { op: "remove", path: "/items/1", from: 2 },
      ],
    ],
    ["an array item appended", [1], [1, { x: 1 }], [{ op: "add", path: "/1", value: { x: 1 } }]],
    [
      "keys with / and ~ are escaped",
      { "a/b": 1, "c~d": 1 },
      { "a/b": 2, "c~d": 2 },
      [
        { op: "replace", path: "/a~1b", from: 1, value: 2 },
        { op: "replace", path: "/c~0d", from: 1, value: 2 },
      ],
    ],
    [
      "a type change replaces the whole value",
      { a: [1] },
      { a: { 0: 1 } },
      [{ op: "replace", path: "/a", from: [1], value: { 0: 1 } }],
    ],
    ["the whole input replaced", "old", "new", [{ op: "replace", path: "", from: "old", value: "new" }]],
    ["null to a value", null, { a: 1 }, [{ op: "replace", path: "", from: null, value: { a: 1 } }]],
  ])("%s", (_name, original, edited, expected) => {
    expect(diffInputs(original, edited)).toEqual(expected);
  });

  it("__proto__ as a key is a plain key", () => {
    const original = JSON.parse('{"__proto__": {"a": 1}}') as unknown;
    const edited = JSON.parse('{"__proto__": {"a": 2}}') as unknown;
    expect(diffInputs(original, edited)).toEqual([
      { op: "replace", path: "/__proto__/a", from: 1, value: 2 },
    ]);
  });
});
