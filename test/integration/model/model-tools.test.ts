import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type TAnyToolDef } from "../../../src/contracts/index.js";
import { TollgateError } from "../../../src/errors/index.js";
import { toModelTools } from "../../../src/model/index.js";

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
