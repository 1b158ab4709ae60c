import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type TAnyToolDef } from "../../../src/contracts/index.js";
import { TollgateError } from "../../../src/errors/index.js";
import { toModelTools } from "../../../src/model/index.js";
import { toResponsesTools } from "../../../src/model/responses-wire.js";
import { jsonSchemaInput } from "../../../src/tools/index.js";

function toolWith(inputSchema: z.ZodType, name = "some_tool"): TAnyToolDef {
  return defineTool({ name, description: `the ${name}`, inputSchema, execute: async () => "done" });
}

describe("toModelTools", () => {
  it("describes the input side of the schema as a JSON Schema object, without $schema", () => {
    const schema = z.object({
      orderId: z.string().describe("The order"),
      count: z.number().default(1),
      address: z.object({ city: z.string(), zip: z.string().optional() }),
    });
    const [tool] = toModelTools([toolWith(schema, "lookup_order")]);
    expect(tool).toEqual({
      type: "function",
      function: {
        name: "lookup_order",
        description: "the lookup_order",
        parameters: {
          type: "object",
          properties: {
            orderId: { type: "string", description: "The order" },
            count: { type: "number", default: 1 },
            address: {
              type: "object",
              properties: { city: { type: "string" }, zip: { type: "string" } },
              required: ["city"],
            },
          },
          required: ["orderId", "address"],
        },
      },
    });
  });

  it("computes a schema's parameters once and shares them, frozen", () => {
    const schema = z.object({ id: z.string() });
    const first = toModelTools([toolWith(schema, "a")])[0]?.function.parameters;
    const second = toModelTools([toolWith(schema, "b")])[0]?.function.parameters;
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it.each([
    {
      name: "a union of objects",
      schema: z.union([z.object({ a: z.string() }), z.object({ b: z.number() })]),
    },
    { name: "an unknown input", schema: z.unknown() },
  ])("gives $name a top-level object type", ({ schema }) => {
    expect(toModelTools([toolWith(schema)])[0]?.function.parameters).toMatchObject({ type: "object" });
  });

  it.each([
    { name: "a string", schema: z.string(), reason: "must describe an object" },
    { name: "a date", schema: z.object({ when: z.date() }), reason: "cannot be expressed as JSON Schema" },
  ])("refuses $name as TG_INVALID_TOOL_DEFINITION", ({ schema, reason }) => {
    let thrown: unknown;
    try {
      toModelTools([toolWith(schema)]);
    } catch (error) {
      thrown = error;
    }
    expect(TollgateError.is(thrown, "TG_INVALID_TOOL_DEFINITION")).toBe(true);
    expect((thrown as Error).message).toContain(reason);
  });
});

describe("toModelTools: JSON Schema tools, strict where the endpoint and the schema allow it", () => {
  const closed = {
    type: "object",
    properties: { city: { type: "string" }, days: { type: "integer" } },
    required: ["city", "days"],
    additionalProperties: false,
  };
  const remote = (schema: Record<string, unknown>, name = "remote_tool") =>
    defineTool({ name, description: "remote", inputSchema: jsonSchemaInput(schema), execute: async () => 1 });

  it("sends the JSON Schema as declared, without $schema", () => {
    const [tool] = toModelTools([remote({ $schema: "http://json-schema.org/draft-07/schema#", ...closed })]);
    expect(tool?.function.parameters).toEqual(closed);
    expect(tool?.function).not.toHaveProperty("strict");
  });

  it.each<[string, Record<string, unknown>, boolean]>([
    ["a closed object with every property required", closed, true],
    ["a missing `required`", { ...closed, required: undefined }, false],
    ["an optional property", { ...closed, required: ["city"] }, false],
    ["an open object", { ...closed, additionalProperties: undefined }, false],
    [
      "a `format`",
      { ...closed, properties: { city: { type: "string", format: "uri" }, days: { type: "integer" } } },
      false,
    ],
    [
      "a property with no `type`",
      { ...closed, properties: { city: { description: "any" }, days: { type: "integer" } } },
      false,
    ],
    [
      "a property named like a keyword",
      {
        ...closed,
        properties: { format: { type: "string" }, not: { type: "string" } },
        required: ["format", "not"],
      },
      true,
    ],
    ["no top-level type (added for the model)", { properties: {}, additionalProperties: false }, true],
  ])("%s decides strict mode where the endpoint honours strict schemas", (_case, schema, strict) => {
    const [chat] = toModelTools([remote(schema)], { strictSchemas: true });
    expect(chat?.function.strict).toBe(strict);
    expect(chat?.function.parameters).toMatchObject({ type: "object" });
    const [responses] = toResponsesTools([remote(schema)], true);
    expect(responses?.strict).toBe(strict);
  });

  it("nothing is strict for an endpoint without strict schemas; zod tools follow the same rule", () => {
    const strictZod = toolWith(z.strictObject({ id: z.string() }), "zod_closed");
    const openZod = toolWith(z.object({ id: z.string().optional() }), "zod_open");
    expect(
      toModelTools([remote(closed), strictZod], { strictSchemas: false }).map((tool) => tool.function.strict),
    ).toEqual([undefined, undefined]);
    expect(toResponsesTools([remote(closed), strictZod]).map((tool) => tool.strict)).toEqual([false, false]);
    expect(
      toModelTools([strictZod, openZod], { strictSchemas: true }).map((tool) => tool.function.strict),
    ).toEqual([true, false]);
  });
});
