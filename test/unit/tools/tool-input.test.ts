import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineTool, type IToolErrorReport } from "../../../src/contracts/index.js";
import { gatewayToolCodes, ToolRegistry } from "../../../src/tools/index.js";
import { callRequest, echoTool } from "./fixtures.js";

const orderSchema = z.object({
  orderId: z.string().regex(/^\d+$/),
  quantity: z.number().int().positive(),
  note: z.string().default("none"),
});

function orderTool(execute = vi.fn(async ({ input }: { input: unknown }) => input)) {
  return defineTool({
    name: "place_order",
    description: "Places an order.",
    inputSchema: orderSchema,
    execute,
  });
}

describe("rule 2: the input is parsed with the schema before anything; rejected input never reaches execute", () => {
  it("a rejected input is a result naming every wrong field, and execute is never called", async () => {
    const execute = vi.fn(async () => "placed");
    const registry = new ToolRegistry({ tools: [orderTool(execute)] });
    const result = await registry.execute(callRequest("place_order", { orderId: "abc", quantity: -1 }));
    expect(execute).not.toHaveBeenCalled();
    expect(result).toMatchObject({
      isError: true,
      outcome: "invalid_input",
      status: 400,
      errorCode: gatewayToolCodes.INVALID_INPUT,
      endsRun: false,
      durationMs: 0,
      input: { orderId: "abc", quantity: -1 },
    });
    expect(result.text).toMatch(
      /^code: TG_INVALID_INPUT, status: 400, userMessage: The input is not valid: orderId: .*; quantity: .*Fix these fields and call again\.$/,
    );
  });

  it("execute receives the parsed input (defaults applied), and the result carries it", async () => {
    const execute = vi.fn(async ({ input }: { input: unknown }) => input);
    const registry = new ToolRegistry({ tools: [orderTool(execute)] });
    const result = await registry.execute(callRequest("place_order", { orderId: "42", quantity: 2 }));
    const parsed = { orderId: "42", quantity: 2, note: "none" };
    expect(execute).toHaveBeenCalledWith(expect.objectContaining({ input: parsed }));
    expect(result).toMatchObject({ isError: false, outcome: "ok", input: parsed, output: parsed });
  });

  it("parseInput returns the field issues, or the parsed input", async () => {
    const registry = new ToolRegistry({ tools: [orderTool()] });
    const rejected = await registry.parseInput("place_order", { orderId: "1" });
    expect(rejected).toMatchObject({ ok: false, issues: [{ path: "quantity" }] });
    expect(await registry.parseInput("place_order", { orderId: "1", quantity: 1 })).toEqual({
      ok: true,
      input: { orderId: "1", quantity: 1, note: "none" },
    });
    expect(await registry.parseInput("nope", {})).toMatchObject({
      ok: false,
      failure: { outcome: "unknown_tool" },
    });
  });

  it("async refinements run", async () => {
    const schema = z
      .object({ code: z.string() })
      .refine(async ({ code }) => code === "ok", { message: "unknown code", path: ["code"] });
    const registry = new ToolRegistry({ tools: [echoTool({ inputSchema: schema as never })] });
    expect(await registry.parseInput("echo", { code: "bad" })).toMatchObject({
      ok: false,
      issues: [{ path: "code", message: "unknown code" }],
    });
    expect((await registry.parseInput("echo", { code: "ok" })).ok).toBe(true);
  });

  it("a tool whose schema parses at once starts within the execute call, before anything else runs", async () => {
    // A tool job awaits nothing before its tool starts: a worker's fetch of its next job waits for the
    // processor's first await, and its Redis round trip then came before the tool (issue 26).
    const execute = vi.fn(async () => "placed");
    const registry = new ToolRegistry({ tools: [orderTool(execute)] });
    const result = registry.execute(callRequest("place_order", { orderId: "42", quantity: 2 }));
    expect(execute).toHaveBeenCalledTimes(1);
    expect(await result).toMatchObject({ outcome: "ok", output: "placed" });
  });

  it("an async refinement is called once per parse, and the tool starts after it", async () => {
    const calls: string[] = [];
    const schema = z.object({ code: z.string() }).refine(async ({ code }) => {
      calls.push(code);
      return code === "ok";
    });
    const execute = vi.fn(async () => "ran");
    const registry = new ToolRegistry({ tools: [echoTool({ inputSchema: schema as never, execute })] });
    const result = registry.execute(callRequest("echo", { code: "ok" }));
    expect(execute).not.toHaveBeenCalled();
    expect(await result).toMatchObject({ outcome: "ok" });
    expect(execute).toHaveBeenCalledTimes(1);
    expect(calls).toEqual(["ok"]);
  });

  it("a schema that throws is the tool's bug: a generic failure, reported, and execute never called", async () => {
    const reports: IToolErrorReport[] = [];
    const schemaError = new Error("refine exploded");
    const schema = z.object({}).refine(() => {
      throw schemaError;
    });
    const execute = vi.fn(async () => "ran");
    const registry = new ToolRegistry({
      tools: [echoTool({ inputSchema: schema as never, execute })],
      onToolError: (report) => {
        reports.push(report);
      },
    });
    const result = await registry.execute(callRequest("echo", {}));
    expect(execute).not.toHaveBeenCalled();
    expect(result).toMatchObject({ outcome: "error", status: 500, errorCode: gatewayToolCodes.TOOL_FAILED });
    expect(result.text).not.toContain("exploded");
    expect(reports).toMatchObject([{ toolName: "echo", error: schemaError, modelText: result.text }]);
    expect(await registry.parseInput("echo", {})).toMatchObject({
      ok: false,
      issues: [],
      error: schemaError,
    });
  });
});

describe("parseArguments: the model's JSON arguments", () => {
  const registry = new ToolRegistry({ tools: [orderTool()] });

  it.each([
    ["{", "invalid JSON"],
    ["[1,", "truncated JSON"],
  ])("%j (%s) is an invalid-arguments result", async (json) => {
    const parsed = await registry.parseArguments("place_order", json);
    expect(parsed).toMatchObject({
      ok: false,
      failure: { outcome: "invalid_input", status: 400, errorCode: gatewayToolCodes.INVALID_ARGUMENTS },
      issues: [{ path: "" }],
    });
  });

  it.each(["", "  "])("%j is a call without arguments, i.e. {}", async (json) => {
    const echoRegistry = new ToolRegistry({ tools: [echoTool({ inputSchema: z.object({}) as never })] });
    expect(await echoRegistry.parseArguments("echo", json)).toEqual({ ok: true, input: {} });
  });

  it("valid JSON goes on to the schema", async () => {
    expect(await registry.parseArguments("place_order", '{"orderId":"7","quantity":1}')).toMatchObject({
      ok: true,
      input: { orderId: "7" },
    });
    expect(await registry.parseArguments("place_order", '{"orderId":"7"}')).toMatchObject({
      ok: false,
      failure: { errorCode: gatewayToolCodes.INVALID_INPUT },
    });
  });

  it("an unknown tool is reported before its arguments are read", async () => {
    expect(await registry.parseArguments("nope", "{")).toMatchObject({
      ok: false,
      failure: { outcome: "unknown_tool" },
    });
  });
});
