import { describe, expect, it } from "vitest";
import { inputChangeLines, inputFields } from "../../../src/cli/output/input-fields.js";
import { diffInputs } from "../../../src/contracts/index.js";

describe("an input as fields", () => {
  it.each([
    ["an object as key: value", { to: "bob@example.com", amount: 120 }, "to: bob@example.com, amount: 120"],
    [
      "nested values as JSON",
      { order: { id: "A-1" }, tags: ["a", "b"] },
      'order: {"id":"A-1"}, tags: ["a","b"]',
    ],
    ["a string that reads as a number is quoted", { code: "120" }, 'code: "120"'],
    ["an empty string is quoted", { note: "" }, 'note: ""'],
    ["a string with a comma is quoted", { note: "late, broken" }, 'note: "late, broken"'],
    ["null and booleans as JSON", { refund: true, reason: null }, "refund: true, reason: null"],
    ["an empty object", {}, "{}"],
    ["what is not an object, as JSON", ["a", 1], '["a",1]'],
    ["a bare string as it is", "hello", "hello"],
  ])("%s", (_name, input, text) => {
    expect(inputFields(input)).toBe(text);
  });

  it("an edit as what it changed, a change a line", () => {
    const changes = diffInputs(
      { to: "bob@example.com", amount: 180, items: [{ qty: 2 }], ref: 7 },
      { to: "carol@example.com", amount: 120, items: [{ qty: 1 }], note: "capped" },
    );
    expect(inputChangeLines(changes)).toEqual([
      "to: bob@example.com → carol@example.com",
      "amount: 180 → 120",
      "items.0.qty: 2 → 1",
      "ref: - 7",
      "note: + capped",
    ]);
  });

  it("a whole input replaced", () => {
    expect(inputChangeLines(diffInputs("a", "b"))).toEqual(["a → b"]);
  });
});
