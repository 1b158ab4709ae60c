import { describe, expect, it } from "vitest";
import { outputToText, truncateForModel, truncationMarker } from "../../../src/tools/index.js";

describe("rule 9 (design decision D60): output longer than maxOutputChars is cut with a visible marker", () => {
  it("leaves text within the limit as it is", () => {
    expect(truncateForModel("abc", 3)).toEqual({ text: "abc", truncatedChars: 0 });
  });

  it("cuts longer text and says how many characters were cut", () => {
    const text = "a".repeat(100);
    const result = truncateForModel(text, 50);
    expect(result.text).toBe(`${"a".repeat(24)}…[truncated 76 characters]`);
    expect(result.truncatedChars).toBe(76);
  });

  it.each([30, 31, 40, 99, 100, 500, 1000, 9999])(
    "the result fits maxChars = %i and counts the cut exactly",
    (maxChars) => {
      const text = "b".repeat(10_000);
      const result = truncateForModel(text, maxChars);
      expect(result.text.length).toBeLessThanOrEqual(maxChars);
      expect(result.text.endsWith(truncationMarker(result.truncatedChars))).toBe(true);
      expect(
        result.text.length - truncationMarker(result.truncatedChars).length + result.truncatedChars,
      ).toBe(text.length);
    },
  );

  it("a limit smaller than the marker leaves only the marker", () => {
    expect(truncateForModel("c".repeat(100), 5)).toEqual({
      text: truncationMarker(100),
      truncatedChars: 100,
    });
  });

  it("never splits a surrogate pair", () => {
    const text = `${"d".repeat(4)}😀${"e".repeat(100)}`;
    const markerLength = truncationMarker(text.length).length;
    const result = truncateForModel(text, markerLength + 5);
    expect(result.text.startsWith("dddd…")).toBe(true);
    expect(result.truncatedChars).toBe(text.length - 4);
  });
});

describe("outputToText: what the model reads of an output", () => {
  const cycle: Record<string, unknown> = { name: "loop" };
  cycle.self = cycle;
  const bareCycle: Record<string, unknown> = Object.create(null);
  bareCycle.self = bareCycle;
  it.each([
    ["a string as is", "plain", "plain"],
    ["undefined as empty", undefined, ""],
    ["null as JSON", null, "null"],
    ["a number", 42, "42"],
    ["an object as JSON", { a: 1, b: [true] }, '{"a":1,"b":[true]}'],
    ["a BigInt", 10n, "10"],
    ["a nested BigInt as a string", { amount: 10n }, '{"amount":"10"}'],
    ["a cycle via String()", cycle, "[object Object]"],
    ["a cycle without prototype", bareCycle, "[object Object]"],
    ["a function via String()", function named() {}, "function named() {}"],
    ["a symbol via String()", Symbol("s"), "Symbol(s)"],
  ])("%s", (_name, output, text) => {
    expect(outputToText(output)).toBe(text);
  });
});
