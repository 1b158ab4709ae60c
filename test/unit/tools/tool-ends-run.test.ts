import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineTool, type IToolErrorReport, type TAnyToolDef } from "../../../src/contracts/index.js";
import { ToolRegistry } from "../../../src/tools/index.js";
import { callRequest, echoTool, never } from "./fixtures.js";

const handover = (endsRun: TAnyToolDef["endsRun"]) =>
  defineTool({
    name: "handover_to_agent",
    description: "Hands the case to a human agent.",
    inputSchema: z.object({ queue: z.string() }),
    execute: async ({ input }) => ({ status: input.queue === "open" ? "accepted" : "refused" }),
    endsRun,
  });

describe("rule 13 (design decision D86): endsRun decides, after a successful call, whether it ends the run", () => {
  it.each<[string, TAnyToolDef["endsRun"], string, boolean]>([
    ["omitted: never", undefined, "open", false],
    ["false: never", false, "open", false],
    ["true: every successful call", true, "closed", true],
    ["a predicate on the output: accepted", ({ output }) => output.status === "accepted", "open", true],
    ["a predicate on the output: refused", ({ output }) => output.status === "accepted", "closed", false],
    ["an async predicate", async ({ input }) => input.queue === "open", "open", true],
    ["a predicate answering a non-boolean truthy value", () => "yes" as unknown as boolean, "open", false],
  ])("%s", async (_name, endsRun, queue, expected) => {
    const registry = new ToolRegistry({ tools: [handover(endsRun)] });
    expect(await registry.execute(callRequest("handover_to_agent", { queue }))).toMatchObject({
      outcome: "ok",
      endsRun: expected,
    });
  });

  it("the predicate sees the parsed input and the tool's output, after the tool returned", async () => {
    const order: string[] = [];
    const predicate = vi.fn(() => {
      order.push("endsRun");
      return true;
    });
    const registry = new ToolRegistry({
      tools: [
        echoTool({
          inputSchema: z.object({ text: z.string().trim() }),
          execute: async ({ input }) => {
            order.push("execute");
            return { echoed: input.text };
          },
          endsRun: predicate,
        }),
      ],
    });
    await registry.execute(callRequest("echo", { text: "  hi  " }));
    expect(order).toEqual(["execute", "endsRun"]);
    expect(predicate).toHaveBeenCalledWith({ input: { text: "hi" }, output: { echoed: "hi" } });
  });

  it("a predicate that throws does not end the run and is reported", async () => {
    const predicateError = new Error("predicate bug");
    const reports: IToolErrorReport[] = [];
    const registry = new ToolRegistry({
      tools: [
        echoTool({
          endsRun: () => {
            throw predicateError;
          },
        }),
      ],
      onToolError: (report) => {
        reports.push(report);
      },
    });
    const result = await registry.execute(callRequest("echo", { text: "x" }));
    expect(result).toMatchObject({ outcome: "ok", isError: false, endsRun: false });
    expect(reports).toMatchObject([{ error: predicateError, modelText: result.text }]);
  });

  it.each<[string, Partial<TAnyToolDef>, unknown]>([
    ["a call that threw", { execute: () => Promise.reject(new Error("boom")) }, { text: "x" }],
    ["a call that timed out", { execute: () => never(), timeoutMs: 20 }, { text: "x" }],
    ["a call whose input was rejected", {}, { text: 1 }],
  ])("%s never ends the run, and the predicate is not asked", async (_name, overrides, input) => {
    const predicate = vi.fn(() => true);
    for (const endsRun of [true, predicate]) {
      const registry = new ToolRegistry({ tools: [echoTool({ ...overrides, endsRun })] });
      expect(await registry.execute(callRequest("echo", input))).toMatchObject({
        isError: true,
        endsRun: false,
      });
    }
    expect(predicate).not.toHaveBeenCalled();
  });
});

describe("D86 endsRun predicate within the tool's timeout", () => {
  it("a predicate that never settles does not hang the call: it does not end the run, and onToolError hears of it", async () => {
    const reports: unknown[] = [];
    const registry = new ToolRegistry({
      tools: [
        defineTool({
          name: "hangs_in_ends_run",
          description: "Its endsRun predicate never answers.",
          inputSchema: z.object({}),
          timeoutMs: 30,
          execute: async () => ({ ok: true }),
          endsRun: () => new Promise<boolean>(() => {}),
        }),
      ],
      onToolError: (report) => {
        reports.push(report.error);
      },
    });
    const execution = await registry.execute({
      toolName: "hangs_in_ends_run",
      input: {},
      callId: "call-1",
      runId: "run-1",
      threadId: "thread-1",
      userContext: { userId: "u" },
    });
    expect(execution).toMatchObject({ isError: false, outcome: "ok", endsRun: false });
    expect(reports).toHaveLength(1);
  });
});
