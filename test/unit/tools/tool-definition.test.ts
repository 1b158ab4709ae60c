import { describe, expect, it } from "vitest";
import { z } from "zod";
import { EToolCallVerdict, type TAnyToolDef } from "../../../src/contracts/index.js";
import { TollgateError } from "../../../src/errors/index.js";
import { ToolRegistry } from "../../../src/tools/index.js";
import { callRequest, echoTool, namedTool } from "./fixtures.js";

function thrownBy(action: () => unknown): TollgateError {
  try {
    action();
  } catch (error) {
    if (TollgateError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a TollgateError");
}

describe("rule 1: names are unique and snake_case; a bad or duplicate name fails at registration, naming the tool", () => {
  it.each(["a", "echo", "lookup_order", "get_v2_status", "a1_b2", "x".repeat(64)])("accepts %s", (name) => {
    expect(new ToolRegistry({ tools: [namedTool(name)] }).has(name)).toBe(true);
  });

  it.each([
    "",
    "Echo",
    "lookupOrder",
    "lookup-order",
    "_echo",
    "echo_",
    "look__up",
    "1tool",
    "with space",
    "__proto__",
    "x".repeat(65),
  ])("rejects %j", (name) => {
    const error = thrownBy(() => new ToolRegistry({ tools: [namedTool(name)] }));
    expect(error.code).toBe("TG_INVALID_TOOL_DEFINITION");
    expect(error.message).toContain(`"${name}"`);
    expect(error.details).toMatchObject({ toolName: name });
  });

  it("rejects a duplicate name with TG_DUPLICATE_TOOL_NAME", () => {
    const error = thrownBy(
      () => new ToolRegistry({ tools: [namedTool("lookup_order"), namedTool("lookup_order")] }),
    );
    expect(error.code).toBe("TG_DUPLICATE_TOOL_NAME");
    expect(error.message).toContain('"lookup_order"');
    expect(error.details).toMatchObject({ toolName: "lookup_order" });
  });
});

describe("a tool definition that breaks the contract fails at registration", () => {
  it.each<[string, Partial<Record<keyof TAnyToolDef, unknown>>, string]>([
    ["a non-string name", { name: 42 }, "(name number)"],
    ["an empty description", { description: "  " }, "description"],
    ["a description that is not a string", { description: undefined }, "description"],
    ["a schema that is not zod", { inputSchema: { parse: () => ({}) } }, "inputSchema"],
    ["no schema", { inputSchema: undefined }, "inputSchema"],
    ["no execute", { execute: "run" }, "execute"],
    ["tags that are not strings", { tags: ["billing", 3] }, "tags"],
    ["tags that are not an array", { tags: "billing" }, "tags"],
    ["an unknown verdict", { policy: "MAYBE" }, "policy"],
    ["endsRun of another type", { endsRun: "yes" }, "endsRun"],
    ["visibleWhen of another type", { visibleWhen: true }, "visibleWhen"],
    ["readOnly that is not a boolean", { readOnly: "yes" }, "readOnly must be a boolean"],
    ["idempotent that is not a boolean", { idempotent: 1 }, "idempotent must be a boolean"],
    ["a zero timeoutMs", { timeoutMs: 0 }, "timeoutMs"],
    ["a fractional timeoutMs", { timeoutMs: 1.5 }, "timeoutMs"],
    ["a timeoutMs timers cannot hold", { timeoutMs: 2 ** 31 }, "timeoutMs"],
    ["a negative maxOutputChars", { maxOutputChars: -1 }, "maxOutputChars"],
    ["a string approvalTtlMs", { approvalTtlMs: "60000" }, "approvalTtlMs"],
  ])("%s", (_name, fields, named) => {
    const error = thrownBy(() => new ToolRegistry({ tools: [{ ...echoTool(), ...fields } as TAnyToolDef] }));
    expect(error.code).toBe("TG_INVALID_TOOL_DEFINITION");
    expect(error.message).toContain(named);
  });

  it("accepts every optional field when it is well formed", () => {
    const tool = echoTool({
      tags: ["billing"],
      policy: EToolCallVerdict.NEEDS_APPROVAL,
      endsRun: () => true,
      visibleWhen: () => true,
      readOnly: true,
      idempotent: true,
      timeoutMs: 10,
      maxOutputChars: 10,
      approvalTtlMs: 10,
    });
    expect(new ToolRegistry({ tools: [tool], toolTimeoutMs: 1, maxOutputChars: 1 }).list()).toEqual([tool]);
  });

  it.each([null, "echo"])("a tool that is not an object (%j)", (tool) => {
    const error = thrownBy(() => new ToolRegistry({ tools: [tool as unknown as TAnyToolDef] }));
    expect(error.code).toBe("TG_INVALID_TOOL_DEFINITION");
  });

  it.each<[string, object]>([
    ["tools that are not an array", { tools: "echo" }],
    ["no config", undefined as unknown as object],
    ["a zero maxOutputChars", { tools: [], maxOutputChars: 0 }],
    ["a fractional toolTimeoutMs", { tools: [], toolTimeoutMs: 0.5 }],
  ])("a registry config with %s fails with TG_INVALID_CONFIG", (_name, config) => {
    expect(thrownBy(() => new ToolRegistry(config as never)).code).toBe("TG_INVALID_CONFIG");
  });
});

describe("rule 14: tool names are looked up as own entries only", () => {
  const registry = new ToolRegistry({ tools: [echoTool()] });
  it.each(["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "prototype"])(
    "%s is unknown",
    async (name) => {
      expect(registry.get(name)).toBeUndefined();
      expect(registry.has(name)).toBe(false);
      expect((await registry.parseInput(name, {})).ok).toBe(false);
      expect(await registry.execute(callRequest(name, {}))).toMatchObject({
        isError: true,
        outcome: "unknown_tool",
        status: 404,
      });
    },
  );

  it("a tool named like an Object.prototype member is found as itself", () => {
    const constructorTool = namedTool("constructor");
    expect(new ToolRegistry({ tools: [constructorTool] }).get("constructor")).toBe(constructorTool);
  });
});

describe("list and limits", () => {
  it("lists the tools in registration order", () => {
    const names = ["zeta", "alpha", "mid"];
    expect(
      new ToolRegistry({ tools: names.map((name) => namedTool(name)) }).list().map((tool) => tool.name),
    ).toEqual(names);
  });

  it.each([
    [
      "the registry's defaults",
      {},
      {},
      { timeoutMs: 30_000, maxOutputChars: 20_000, maxStoredOutputBytes: 1_048_576, isolation: "inline" },
    ],
    [
      "the registry's settings",
      { toolTimeoutMs: 100, maxOutputChars: 200, maxStoredOutputBytes: 5_000, isolation: "thread" as const },
      {},
      { timeoutMs: 100, maxOutputChars: 200, maxStoredOutputBytes: 5_000, isolation: "thread" },
    ],
    [
      "D60 (per-tool limits): the tool's overrides",
      { toolTimeoutMs: 100 },
      { timeoutMs: 7, maxOutputChars: 9, maxStoredOutputBytes: 11, isolation: "process" as const },
      { timeoutMs: 7, maxOutputChars: 9, maxStoredOutputBytes: 11, isolation: "process" },
    ],
  ])("limitsOf uses %s", (_name, registryLimits, toolLimits, expected) => {
    const registry = new ToolRegistry({ tools: [echoTool(toolLimits)], ...registryLimits });
    expect(registry.limitsOf("echo")).toEqual(expected);
  });

  it("limitsOf an unknown name is the registry's", () => {
    expect(new ToolRegistry({ tools: [], toolTimeoutMs: 5 }).limitsOf("nope")).toEqual({
      timeoutMs: 5,
      maxOutputChars: 20_000,
      maxStoredOutputBytes: 1_048_576,
      isolation: "inline",
    });
  });
});

describe("rule 15: additional tools join for that run only; a name clash is an error", () => {
  const extra = namedTool("open_ticket", { execute: async () => "ticket 1" });

  it("the run's registry has both; the base registry is unchanged", async () => {
    const base = new ToolRegistry({ tools: [echoTool()] });
    const forRun = base.withAdditional([extra]);
    expect(forRun.list().map((tool) => tool.name)).toEqual(["echo", "open_ticket"]);
    expect(base.has("open_ticket")).toBe(false);
    expect(base.list()).toHaveLength(1);
    expect(await forRun.execute(callRequest("open_ticket", { text: "x" }))).toMatchObject({
      text: "ticket 1",
    });
  });

  it("keeps the registry's limits and onToolError", async () => {
    const reports: string[] = [];
    const base = new ToolRegistry({
      tools: [],
      toolTimeoutMs: 123,
      maxOutputChars: 456,
      onToolError: (report) => {
        reports.push(report.toolName);
      },
    });
    const failing = namedTool("failing", { execute: async () => Promise.reject(new Error("boom")) });
    const forRun = base.withAdditional([failing]);
    expect(forRun.limitsOf("failing")).toMatchObject({ timeoutMs: 123, maxOutputChars: 456 });
    await forRun.execute(callRequest("failing", { text: "x" }));
    expect(reports).toEqual(["failing"]);
  });

  it("a name already in the registry is a TG_TOOL_NAME_CLASH naming the tool", () => {
    const error = thrownBy(() =>
      new ToolRegistry({ tools: [echoTool()] }).withAdditional([namedTool("echo")]),
    );
    expect(error.code).toBe("TG_TOOL_NAME_CLASH");
    expect(error.message).toContain('"echo"');
    expect(error.details).toMatchObject({ toolName: "echo" });
  });

  it("additional tools are validated like any other", () => {
    const base = new ToolRegistry({ tools: [echoTool()] });
    expect(thrownBy(() => base.withAdditional([namedTool("Bad")])).code).toBe("TG_INVALID_TOOL_DEFINITION");
    expect(thrownBy(() => base.withAdditional([null as unknown as TAnyToolDef])).code).toBe(
      "TG_INVALID_TOOL_DEFINITION",
    );
    expect(thrownBy(() => base.withAdditional([extra, extra])).code).toBe("TG_DUPLICATE_TOOL_NAME");
  });
});

describe("zod schemas", () => {
  it("accepts any zod 4 schema, not only objects", () => {
    expect(() => new ToolRegistry({ tools: [echoTool({ inputSchema: z.any() as never })] })).not.toThrow();
  });
});
