import { describe, expect, it, vi } from "vitest";
import { defineTool, EToolCallVerdict } from "../../../src/contracts/index.js";
import { TollgateError } from "../../../src/errors/index.js";
import { ToolPolicy } from "../../../src/policy/index.js";
import { gatewayToolCodes, jsonSchemaInput, ToolRegistry } from "../../../src/tools/index.js";
import { callRequest, userContext } from "./fixtures.js";

/** What an MCP server typically declares: draft-07 dialect, a format, a default, an optional field. */
const refundSchema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: {
    chargeId: { type: "string", pattern: "^ch_" },
    amount: { type: "number", exclusiveMinimum: 0 },
    currency: { type: "string", enum: ["EUR", "USD"], default: "EUR" },
    receiptUrl: { type: "string", format: "uri" },
    lines: { type: "array", items: { $ref: "#/definitions/line" } },
  },
  required: ["chargeId", "amount"],
  additionalProperties: false,
  definitions: {
    line: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] },
  },
};

function refundTool(execute = vi.fn(async ({ input }: { input: unknown }) => input)) {
  return defineTool({
    name: "refund",
    description: "Refunds a charge.",
    inputSchema: jsonSchemaInput<{ chargeId: string; amount: number }>(refundSchema),
    execute,
  });
}

describe("a tool whose input is a JSON Schema: validated by ajv, errors read like zod's", () => {
  it("execute receives the validated input with defaults filled in; what was sent is not changed", async () => {
    const execute = vi.fn(async ({ input }: { input: unknown }) => input);
    const registry = new ToolRegistry({ tools: [refundTool(execute)] });
    const sent = { chargeId: "ch_1", amount: 5, lines: [{ sku: "A" }] };
    const result = await registry.execute(callRequest("refund", sent));
    const validated = { ...sent, currency: "EUR" };
    expect(execute).toHaveBeenCalledWith(expect.objectContaining({ input: validated }));
    expect(result).toMatchObject({ isError: false, outcome: "ok", input: validated });
    expect(sent).not.toHaveProperty("currency");
  });

  it("a rejected input names every wrong field in the seed's line, and execute is never called", async () => {
    const execute = vi.fn(async () => "refunded");
    const registry = new ToolRegistry({ tools: [refundTool(execute)] });
    const input = { amount: -1, currency: "GBP", receiptUrl: "not a uri", lines: [{}], extra: 1 };
    const result = await registry.execute(callRequest("refund", input));
    expect(execute).not.toHaveBeenCalled();
    expect(result).toMatchObject({
      isError: true,
      outcome: "invalid_input",
      status: 400,
      errorCode: gatewayToolCodes.INVALID_INPUT,
      durationMs: 0,
      input,
    });
    expect(result.text).toBe(
      "code: TG_INVALID_INPUT, status: 400, userMessage: The input is not valid: chargeId: is required; " +
        "extra: is not allowed; amount: must be > 0; currency: must be equal to one of the allowed values: " +
        '["EUR","USD"]; receiptUrl: must match format "uri"; lines.0.sku: is required. Fix these fields and call again.',
    );
  });

  it("parseArguments reads the model's JSON text and checks it against the schema", async () => {
    const registry = new ToolRegistry({ tools: [refundTool()] });
    expect(await registry.parseArguments("refund", '{"chargeId":"ch_9","amount":1}')).toEqual({
      ok: true,
      input: { chargeId: "ch_9", amount: 1, currency: "EUR" },
    });
    expect(await registry.parseArguments("refund", '{"chargeId":"x","amount":1}')).toMatchObject({
      ok: false,
      issues: [{ path: "chargeId", message: 'must match pattern "^ch_"' }],
    });
  });

  it.each([
    {
      name: "a root that is not an object",
      schema: { type: "array" },
      reason: /root must be "type": "object"/,
    },
    {
      name: "a schema ajv cannot compile",
      schema: { type: "object", properties: { a: { type: "nope" } } },
      reason: /does not compile/,
    },
    {
      name: "a $ref to another document",
      schema: { type: "object", properties: { a: { $ref: "https://example.test/a.json" } } },
      reason: /does not compile/,
    },
  ])("refuses $name as TG_INVALID_TOOL_DEFINITION naming the tool", ({ schema, reason }) => {
    const tool = defineTool({
      name: "remote",
      description: "d",
      inputSchema: jsonSchemaInput(schema),
      execute: async () => 1,
    });
    let thrown: unknown;
    try {
      new ToolRegistry({ tools: [tool] });
    } catch (error) {
      thrown = error;
    }
    expect(TollgateError.is(thrown, "TG_INVALID_TOOL_DEFINITION")).toBe(true);
    expect((thrown as Error).message).toMatch(/Tool "remote" is invalid/);
    expect((thrown as Error).message).toMatch(reason);
  });

  it("the schema is copied and frozen: changing the object given later changes nothing", async () => {
    const schema = { type: "object", properties: { a: { type: "string" } }, required: ["a"] };
    const input = jsonSchemaInput(schema);
    (schema.properties.a as { type: string }).type = "number";
    expect(Object.isFrozen(input.jsonSchema)).toBe(true);
    const registry = new ToolRegistry({
      tools: [defineTool({ name: "remote", description: "d", inputSchema: input, execute: async () => 1 })],
    });
    expect(await registry.parseInput("remote", { a: "text" })).toMatchObject({ ok: true });
  });
});

describe("an edit of a parked call is checked against the tool's JSON Schema (D109)", () => {
  const policy = new ToolPolicy();
  const context = { userContext, threadId: "thread-1" };
  const tool = { ...refundTool(), policy: EToolCallVerdict.NEEDS_APPROVAL };

  it("an edit the schema refuses is refused with the field issues", async () => {
    expect(await policy.decideEdited(tool, { chargeId: "ch_1", amount: 0 }, context)).toEqual({
      ok: false,
      issues: [{ path: "amount", message: "must be > 0" }],
    });
  });

  it("an edit the schema accepts runs with its defaults, approved by the human who made it", async () => {
    expect(await policy.decideEdited(tool, { chargeId: "ch_1", amount: 3 }, context)).toMatchObject({
      ok: true,
      input: { chargeId: "ch_1", amount: 3, currency: "EUR" },
      result: { verdict: EToolCallVerdict.ALLOW },
      verdictBeforeApproval: EToolCallVerdict.NEEDS_APPROVAL,
    });
  });
});
