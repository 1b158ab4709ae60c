import { describe, expect, it } from "vitest";
import type { IToolErrorReport } from "../../../src/contracts/index.js";
import {
  gatewayToolCodes,
  storedOutputOf,
  ToolRegistry,
  unexpectedFailure,
} from "../../../src/tools/index.js";
import { callRequest, echoTool, steppingClock } from "./fixtures.js";

function circular(): unknown {
  const value: Record<string, unknown> = { name: "loop" };
  value.self = value;
  return value;
}

function deeplyNested(depth: number): unknown {
  const root: Record<string, unknown> = {};
  let current = root;
  for (let level = 0; level < depth; level += 1) {
    const next: Record<string, unknown> = {};
    current.child = next;
    current = next;
  }
  return root;
}

describe("issue 10 defect 4: an output JSON cannot hold is a tool error the model reads as the generic line", () => {
  it.each([
    ["a circular object", circular],
    ["a BigInt", () => ({ big: BigInt(1) })],
    ["a throwing toJSON", () => ({ toJSON: boom })],
    ["a 5,000-deep object", () => deeplyNested(5_000)],
  ])("%s", async (_name, makeOutput) => {
    const reports: IToolErrorReport[] = [];
    const registry = new ToolRegistry({
      tools: [echoTool({ execute: async () => makeOutput() })],
      onToolError: (report) => {
        reports.push(report);
      },
    });
    const result = await registry.execute(callRequest("echo", { text: "x" }));
    expect(result).toMatchObject({
      isError: true,
      outcome: "error",
      status: 500,
      errorCode: gatewayToolCodes.TOOL_FAILED,
      text: unexpectedFailure().text,
    });
    expect(result.output).toBeUndefined();
    expect(reports).toHaveLength(1);
    expect(String((reports[0]!.error as Error).message)).toContain("not JSON");
  });
});

function boom(): never {
  throw new Error("toJSON threw");
}

describe("issue 10 defect 5: an output over maxStoredOutputBytes is stored as a marker", () => {
  it("keeps what the model reads, stores { truncated, originalBytes, preview }", async () => {
    const big = "é".repeat(3_000); // 6,000 bytes as UTF-8, 3,002 characters as JSON
    const registry = new ToolRegistry({
      tools: [echoTool({ execute: async () => ({ big }), maxStoredOutputBytes: 5_000 })],
      maxOutputChars: 100,
    });
    const result = await registry.execute(callRequest("echo", { text: "x" }));
    expect(result.isError).toBe(false);
    expect(result.text.startsWith('{"big":"éé')).toBe(true);
    expect(result.output).toEqual({
      truncated: true,
      originalBytes: Buffer.byteLength(JSON.stringify({ big })),
      preview: JSON.stringify({ big }).slice(0, 1_000),
    });
  });

  it.each([
    ["under the cap: stored whole", { small: "x" }, 1_024, { small: "x" }],
    ["a string under the cap", "hello", 1_024, "hello"],
    ["undefined: nothing stored", undefined, 1_024, undefined],
  ])("%s", (_name, output, maxBytes, expected) => {
    const stored = storedOutputOf(output, maxBytes);
    expect(stored).toMatchObject({ ok: true });
    expect(stored.ok && stored.stored).toEqual(expected);
  });
});

describe("issue 10 defect 1: a result that arrives after the tool's timeout is a 504", () => {
  it.each([
    ["returned late", async () => ({ fine: true })],
    ["threw late", async () => Promise.reject(new Error("late and wrong"))],
  ])("%s", async (_name, execute) => {
    // The tool took 1,500 ms by the clock against 1,000 ms: its timer never got the chance to fire (a tool
    // that blocks the event loop), so the elapsed time decides.
    const registry = new ToolRegistry(
      { tools: [echoTool({ timeoutMs: 1_000, execute })] },
      { clock: steppingClock([10_000, 11_500]) },
    );
    const result = await registry.execute(callRequest("echo", { text: "x" }));
    expect(result).toMatchObject({
      isError: true,
      outcome: "timeout",
      status: 504,
      errorCode: gatewayToolCodes.TOOL_TIMEOUT,
      durationMs: 1_500,
    });
  });

  it("a result exactly at the timeout is still the tool's", async () => {
    const registry = new ToolRegistry(
      { tools: [echoTool({ timeoutMs: 1_000 })] },
      { clock: steppingClock([10_000, 11_000]) },
    );
    expect(await registry.execute(callRequest("echo", { text: "x" }))).toMatchObject({ outcome: "ok" });
  });
});

describe("nesting depth", () => {
  it.each([
    [500, true],
    [501, false],
  ])("%i levels: stored %s", (depth, ok) => {
    expect(storedOutputOf(deeplyNested(depth - 1), 10_000_000).ok).toBe(ok);
  });

  it("brackets inside strings do not count", () => {
    expect(storedOutputOf({ text: "[[[[{{{{".repeat(200) }, 10_000_000).ok).toBe(true);
  });
});
