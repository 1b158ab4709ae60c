import { describe, expect, it } from "vitest";
import { outputCheckerOf, outputSpecOf } from "../../../src/output/index.js";
import { compileToolInput, jsonSchemaInput, validateJsonSchemaInput } from "../../../src/tools/index.js";

const catastrophic = "^(a+)+$";
// The issue's answer: 31 characters, 54 s of a backtracking engine (twice as long with each one more).
const attack = `${"a".repeat(30)}!`;
/** Long enough for RE2, short enough that a backtracking engine fails the case instead of hanging on. */
const timeout = 20_000;

/** The three places a schema runs a pattern, each with the catastrophic one. */
const catastrophicSchemas: Array<[string, Record<string, unknown>, unknown]> = [
  [
    "pattern",
    { type: "object", properties: { code: { type: "string", pattern: catastrophic } } },
    { code: attack },
  ],
  [
    "patternProperties",
    {
      type: "object",
      patternProperties: { [catastrophic]: { type: "string" } },
      additionalProperties: false,
    },
    { [attack]: "x" },
  ],
  ["propertyNames", { type: "object", propertyNames: { pattern: catastrophic } }, { [attack]: "x" }],
];

describe("JSON Schema patterns in both validators run on RE2", () => {
  it.each(catastrophicSchemas)(
    "an output schema's %s answers a catastrophic text at once",
    (_keyword, schema, answer) => {
      const check = outputCheckerOf({ schema, name: "answer" }).check(JSON.stringify(answer));
      expect(check.ok).toBe(false);
    },
    timeout,
  );

  it.each(catastrophicSchemas)(
    "a tool input schema's %s answers a catastrophic input at once",
    (_keyword, schema, input) => {
      const result = validateJsonSchemaInput(jsonSchemaInput(schema), input);
      expect(result.ok).toBe(false);
      expect(result.ok ? [] : result.issues).not.toEqual([]);
    },
    timeout,
  );

  it("a matching text still passes", () => {
    const [, schema] = catastrophicSchemas[0]!;
    expect(outputCheckerOf({ schema, name: "answer" }).check('{"code":"aaaa"}')).toEqual({
      ok: true,
      value: { code: "aaaa" },
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      "a pattern keyword",
      { type: "object", properties: { code: { type: "string", pattern: "^(?=a)a+$" } } },
      "/properties/code/pattern",
    ],
    [
      "a patternProperties key",
      { type: "object", patternProperties: { "^(?!x-)": { type: "string" } } },
      "/patternProperties/^(?!x-)",
    ],
    [
      "a propertyNames pattern",
      { type: "object", propertyNames: { pattern: "^(a)\\1$" } },
      "/propertyNames/pattern",
    ],
    [
      "a pattern under $defs, with the same text as data in a const before it",
      {
        type: "object",
        properties: { note: { const: { pattern: "(?<=a)b" } }, tag: { $ref: "#/$defs/tag" } },
        $defs: { tag: { type: "string", pattern: "(?<=a)b" } },
      },
      "/$defs/tag/pattern",
    ],
  ])(
    "an output schema with %s that needs backtracking is refused, naming where",
    (_case, schema, schemaPath) => {
      const result = outputSpecOf({ schema });
      expect(result).toMatchObject({
        ok: false,
        problem: {
          path: "schema",
          message: expect.stringContaining(`${schemaPath}: the pattern`),
          refusedPattern: { schemaPath, reason: expect.stringMatching(/needs a backtracking engine/) },
        },
      });
    },
  );

  it("a tool input schema with a pattern RE2 cannot run does not compile, naming where", () => {
    const compiled = compileToolInput(
      jsonSchemaInput({ type: "object", properties: { id: { type: "string", pattern: "^(?=\\d)\\w+$" } } }),
    );
    expect(compiled).toMatchObject({
      ok: false,
      message: expect.stringMatching(
        /^\/properties\/id\/pattern: the pattern "\^\(\?=\\\\d\)\\\\w\+\$" is refused: a lookahead/,
      ),
      refusedPattern: { schemaPath: "/properties/id/pattern", pattern: "^(?=\\d)\\w+$" },
    });
  });

  it("patterns over the schema's program budget are refused; the answer's work is bounded too", () => {
    const big = `a${"[ab]{1000}".repeat(4)}$`;
    const tooMany = {
      type: "object",
      allOf: Array.from({ length: 6 }, () => ({ properties: { x: { pattern: big } } })),
    };
    expect(outputSpecOf({ schema: tooMany })).toMatchObject({
      ok: false,
      problem: { refusedPattern: { reason: expect.stringMatching(/RE2 instructions a schema may have/) } },
    });
    const fits = {
      type: "object",
      properties: { x: { type: "array", items: { type: "string", pattern: big } } },
    };
    expect(outputSpecOf({ schema: fits }).ok).toBe(true);
    // 1,000 texts of 5,000 characters, each read by a 4,000-instruction program: 20 billion, stopped at 10 million.
    const answer = JSON.stringify({ x: Array.from({ length: 1_000 }, () => "b".repeat(5_000)) });
    expect(outputCheckerOf({ schema: fits, name: "answer" }).check(answer)).toEqual({
      ok: false,
      issues: [
        { path: "", message: expect.stringMatching(/^is too long to check against the schema's patterns/) },
      ],
    });
  });
});
