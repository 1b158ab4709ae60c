import { describe, expect, it } from "vitest";
import { canonicalJson, rejectionTextOf, rejectOptionsSchema } from "../../../src/contracts/index.js";

describe("canonical JSON: key order never changes an input's hash", () => {
  it.each([
    [
      "keys sorted at every depth",
      { b: 1, a: { d: [1, { z: 0, y: 1 }], c: "x" } },
      '{"a":{"c":"x","d":[1,{"y":1,"z":0}]},"b":1}',
    ],
    ["arrays keep their order", [3, 1, 2], "[3,1,2]"],
    ["undefined members dropped, as JSON drops them", { a: undefined, b: null }, '{"b":null}'],
    ["strings escaped as JSON", { 'k"ey': "line\nbreak" }, '{"k\\"ey":"line\\nbreak"}'],
    ["a bare value", 12.5, "12.5"],
  ])("%s", (_rule, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });
});

describe("what the model reads for a rejection", () => {
  const option = { name: "tone", title: "Tone", promptFill: "Rewrite it kindly." };
  it.each([
    ["the option's promptFill alone", option, undefined, "Rewrite it kindly."],
    ["the promptFill, then the reason", option, "too curt", "Rewrite it kindly. Reviewer's reason: too curt"],
    ["the reason alone without an option", undefined, "no", "no"],
    ["nothing: the policy's rejectionText applies", undefined, undefined, undefined],
  ])("%s", (_rule, chosen, reason, expected) => {
    expect(rejectionTextOf(chosen, reason)).toBe(expected);
  });

  it.each([
    ["a name used twice", [option, option], "used twice"],
    ["an upper-case name", [{ ...option, name: "Tone" }], "lower-case"],
    ["no promptFill", [{ name: "x", title: "X" }], "promptFill"],
  ])("a list with %s is refused", (_rule, options, message) => {
    const parsed = rejectOptionsSchema.safeParse(options);
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain(message);
  });
});
