import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  allowsStrictMode,
  maxOutputSchemaBytes,
  outputRequestFormatOf,
  outputSpecOf,
} from "../../../src/output/index.js";

const closed = {
  type: "object",
  properties: { total: { type: "number" } },
  required: ["total"],
  additionalProperties: false,
};

describe("outputSpecOf: what a run may store as its output schema", () => {
  it.each<[string, unknown, RegExp]>([
    [
      "a type that does not exist does not compile",
      { type: "object", properties: { a: { type: "strng" } } },
      /does not compile: schema is invalid: data\/properties\/a\/type/,
    ],
    [
      "an unknown keyword is named, not ignored",
      { type: "object", maxProperty: 2 },
      /unknown keyword: "maxProperty"/,
    ],
    [
      "a $ref outside the schema is never fetched",
      { type: "object", properties: { a: { $ref: "https://example.com/a.json" } } },
      /can't resolve reference https:\/\/example.com\/a.json/,
    ],
    [
      "the root must be an object",
      { type: "array", items: { type: "string" } },
      /root must be `"type": "object"`/,
    ],
    [
      "another dialect is refused",
      { $schema: "http://json-schema.org/draft-07/schema#", type: "object" },
      /must be https:\/\/json-schema.org\/draft\/2020-12\/schema/,
    ],
    [
      "an unknown format is named",
      { type: "object", properties: { a: { type: "string", format: "colour" } } },
      /unknown format "colour"/,
    ],
  ])("%s", (_rule, schema, message) => {
    const result = outputSpecOf({ schema: schema as Record<string, unknown> });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problem.path).toBe("schema");
      expect(result.problem.message).toMatch(message);
    }
  });

  it("a schema over the size limit is refused as too large", () => {
    const properties = Object.fromEntries(
      Array.from({ length: 2_000 }, (_, index) => [`field_${index}`, { type: "string" }]),
    );
    const result = outputSpecOf({ schema: { type: "object", properties } });
    expect(result).toMatchObject({ ok: false, problem: { path: "schema", tooLarge: true } });
    expect(JSON.stringify(properties).length).toBeGreaterThan(maxOutputSchemaBytes);
  });

  it("a name the endpoints refuse is named; the default name is output", () => {
    expect(outputSpecOf({ schema: closed, name: "a name" })).toMatchObject({
      ok: false,
      problem: { path: "name" },
    });
    expect(outputSpecOf({ schema: closed })).toEqual({ ok: true, spec: { schema: closed, name: "output" } });
  });

  it("a zod schema becomes zod's own JSON Schema (2020-12); one with no JSON form is refused", () => {
    const result = outputSpecOf({ schema: z.object({ total: z.number(), email: z.email() }), name: "bill" });
    expect(result).toMatchObject({
      ok: true,
      spec: {
        name: "bill",
        schema: {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "object",
          required: ["total", "email"],
          additionalProperties: false,
        },
      },
    });
    expect(outputSpecOf({ schema: z.object({ at: z.date() }) })).toMatchObject({
      ok: false,
      problem: { path: "schema", message: expect.stringMatching(/no JSON Schema form/) },
    });
  });
});

describe("allowsStrictMode: strict only where the schema fits it", () => {
  it.each<[string, Record<string, unknown>, boolean]>([
    ["a closed object with every property required fits", closed, true],
    [
      "zod objects without optional fields fit",
      z.toJSONSchema(z.object({ a: z.string(), b: z.array(z.object({ c: z.number() })) })) as Record<
        string,
        unknown
      >,
      true,
    ],
    ["an optional property does not fit", { ...closed, required: [] }, false],
    ["an open object does not fit", { ...closed, additionalProperties: true }, false],
    [
      "a nested open object does not fit",
      { ...closed, properties: { nested: { type: "object", properties: {} } }, required: ["nested"] },
      false,
    ],
    [
      "a keyword strict mode refuses does not fit",
      { ...closed, properties: { total: { oneOf: [{ type: "number" }] } } },
      false,
    ],
    [
      "a format does not fit (strict mode knows few; `uri` breaks it)",
      { ...closed, properties: { total: { type: "string", format: "uri" } } },
      false,
    ],
    ["a property with no type does not fit", { ...closed, properties: { total: {} } }, false],
    [
      "an enum of objects is data, not a schema",
      { ...closed, properties: { total: { enum: [{ type: "object" }] } } },
      true,
    ],
  ])("%s", (_rule, schema, expected) => {
    expect(allowsStrictMode(schema)).toBe(expected);
  });
});

describe("outputRequestFormatOf: how a model call asks for the answer", () => {
  const spec = {
    schema: { $schema: "https://json-schema.org/draft/2020-12/schema", ...closed },
    name: "bill",
  };

  it.each<[string, { jsonSchema: boolean; strictSchemas: boolean }, unknown]>([
    [
      "json_schema, strict, where the model supports both",
      { jsonSchema: true, strictSchemas: true },
      { type: "json_schema", json_schema: { name: "bill", schema: closed, strict: true } },
    ],
    [
      "json_schema, not strict, where the model lacks strict schemas",
      { jsonSchema: true, strictSchemas: false },
      { type: "json_schema", json_schema: { name: "bill", schema: closed, strict: false } },
    ],
    [
      "json_object where the model lacks json_schema",
      { jsonSchema: false, strictSchemas: true },
      { type: "json_object" },
    ],
  ])("%s", (_rule, support, expected) => {
    expect(outputRequestFormatOf(spec, support).responseFormat).toEqual(expected);
  });

  it("json_object shows the schema to the model in a message", () => {
    const format = outputRequestFormatOf(spec, { jsonSchema: false, strictSchemas: false });
    expect(format.instruction).toContain(JSON.stringify(closed));
  });

  it("a schema that does not fit strict mode is sent with strict false", () => {
    const open = { schema: { ...closed, required: [] }, name: "bill" };
    const format = outputRequestFormatOf(open, { jsonSchema: true, strictSchemas: true });
    expect(format.responseFormat).toMatchObject({ json_schema: { strict: false } });
  });
});
