import { describe, expect, it } from "vitest";
import { z } from "zod";
import { compileLinearPattern, PatternRefusedError } from "../../../src/tools/linear-pattern.js";
import { loadAjv } from "../../../src/tools/load-ajv.js";
import { LinearPatternEngine, PatternWorkExceededError } from "../../../src/tools/pattern-engine.js";
import {
  maxPatternProgramSize,
  maxPatternWork,
  maxSchemaProgramSize,
} from "../../../src/tools/pattern-limits.js";

const modules = loadAjv();
const compile = (source: string) => compileLinearPattern(modules, source);

/** Why a pattern is refused, or "accepted". */
function refusalOf(source: string): string {
  try {
    compile(source);
    return "accepted";
  } catch (error) {
    if (error instanceof PatternRefusedError) return error.reason;
    throw error;
  }
}

const a31 = "a".repeat(31);

describe("compileLinearPattern: JSON Schema patterns on RE2", () => {
  it.each<[string, string, boolean]>([
    // The catastrophic patterns of a backtracking engine answer at once.
    ["^(a+)+$", `${a31}!`, false],
    ["^(a+)+$", a31, true],
    ["^(a|a)*$", `${"a".repeat(5_000)}!`, false],
    ["^(a|aa)+$", `${"a".repeat(5_000)}!`, false],
    ["(x+x+)+y", "x".repeat(5_000), false],
    // A search anywhere, as RegExp's test: anchors are the pattern's.
    ["^ch_", "ch_123", true],
    ["ch_", "a ch_123", true],
    ["^ch_$", "ch_\n", false],
    // What JSON Schemas write: escapes, classes, Unicode, named groups.
    ["^\\d{4}-\\d{2}$", "2024-05", true],
    ["^[a-z0-9_\\-]+$", "a-b_c", true],
    ["^a\\/b$", "a/b", true],
    ["^\\u00e9+$", "éé", true],
    ["^\\u{1F600}$", "😀", true],
    ["^.$", "😀", true],
    ["^\\p{L}+$", "héllo", true],
    ["^\\p{Lu}", "élan", false],
    ["^(?<year>\\d{4})$", "2024", true],
    ["^[^]$", "\n", true],
    ["", "anything", true],
  ])("%s on %j: %s", (source, text, matches) => {
    expect(compile(source).test(text)).toBe(matches);
  });

  it.each<[string, RegExp]>([
    ["^(?=a)a+$", /^a lookahead .* needs a backtracking engine/],
    ["^(?!a)b$", /^a lookahead/],
    ["(?<=a)b", /^a lookbehind/],
    ["(?<!a)b", /^a lookbehind/],
    ["^(a)\\1$", /^a backreference/],
    ["^(?<x>a)\\k<x>$", /^a backreference/],
    ["[", /^it is not an ECMA-262 regular expression/],
    // Unicode mode, as ajv reads patterns: an escape of a letter that means nothing is an error.
    ["\\q", /^it is not an ECMA-262 regular expression/],
    ["^\\p{Script=Greek}+$", /^RE2 cannot express it/],
    ["a{1001}", /^it compiles to about 1001|^RE2 cannot express it/],
    ["[ab]{1000}".repeat(6), new RegExp(`over the ${maxPatternProgramSize} a pattern may have`)],
    ["(?:(?:ab){100}){100}", new RegExp(`over the ${maxPatternProgramSize} a pattern may have`)],
  ])("refuses %s: %s", (source, reason) => {
    expect(refusalOf(source)).toMatch(reason);
  });

  it("refuses a pattern too large before RE2 compiles it, so that refusing costs little", () => {
    // 100 times `[ab]{1000}` is about 100,000 instructions: RE2 would take about 50 ms to compile it.
    const error = (() => {
      try {
        compile("[ab]{1000}".repeat(100));
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(PatternRefusedError);
    expect((error as PatternRefusedError).reason).toMatch(/about 100000 RE2 instructions/);
  });

  it("accepts zod's format patterns but the few written with a lookahead", () => {
    const schema = z.toJSONSchema(
      z.object({
        email: z.email(),
        uuid: z.uuid(),
        dateTime: z.iso.datetime(),
        date: z.iso.date(),
        ipv4: z.ipv4(),
        ipv6: z.ipv6(),
        cidrv6: z.cidrv6(),
        base64: z.base64(),
        duration: z.iso.duration(),
      }),
    ) as { properties: Record<string, { pattern: string }> };
    const refused = Object.entries(schema.properties)
      .filter(([, property]) => refusalOf(property.pattern) !== "accepted")
      .map(([name]) => name);
    expect(refused).toEqual(["duration"]);
    expect(compile(schema.properties.ipv6!.pattern).test("2001:db8::1")).toBe(true);
    expect(compile(schema.properties.email!.pattern).test("ada@example.com")).toBe(true);
  });
});

describe("LinearPatternEngine: the budgets of a compile and of a validation", () => {
  // About 4,000 instructions (RE2 repeats at most 1000 times): its DFA gives up, its NFA steps through all.
  const bigPattern = `a${"[ab]{1000}".repeat(4)}$`;

  it("a schema's patterns together may compile to maxSchemaProgramSize instructions", () => {
    const engine = new LinearPatternEngine(modules);
    const size = compile(bigPattern).programSize;
    const fits = Math.floor(maxSchemaProgramSize / size);
    engine.compiling(() => {
      for (let index = 0; index < fits; index += 1) engine.regExp(bigPattern, "u");
    });
    expect(() =>
      engine.compiling(() => {
        for (let index = 0; index <= fits; index += 1) engine.regExp(bigPattern, "u");
      }),
    ).toThrow(/more than the 20000 RE2 instructions a schema may have/);
    // The next compile has its own budget.
    engine.compiling(() => engine.regExp(bigPattern, "u"));
  });

  it("a validation stops when its patterns would read more than maxPatternWork", () => {
    const engine = new LinearPatternEngine(modules);
    const pattern = engine.regExp(bigPattern, "u");
    const size = compile(bigPattern).programSize;
    const longest = Math.floor(maxPatternWork / size);
    expect(engine.validating(() => pattern.test("b".repeat(longest)))).toBe(false);
    expect(() => engine.validating(() => pattern.test("b".repeat(longest + 1)))).toThrow(
      PatternWorkExceededError,
    );
    // The budget is a validation's: two tests in one add up, the next validation starts afresh.
    const half = "b".repeat(Math.ceil(longest / 2) + 1);
    expect(() => engine.validating(() => pattern.test(half) || pattern.test(half))).toThrow(
      PatternWorkExceededError,
    );
    expect(engine.validating(() => pattern.test(half))).toBe(false);
  });

  it("ajv keeps one compiled pattern per source: its toString is the source", () => {
    const engine = new LinearPatternEngine(modules);
    expect(String(engine.regExp("^a+$", "u"))).toBe("^a+$");
  });
});
