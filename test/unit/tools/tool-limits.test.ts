import { describe, expect, it } from "vitest";
import type { IToolErrorReport } from "../../../src/contracts/index.js";
import { gatewayToolCodes, ToolRegistry, truncationMarker } from "../../../src/tools/index.js";
import { callRequest, echoTool, never, recordingClock, steppingClock } from "./fixtures.js";

describe("rule 8 (design decision D60): a call fails with 504 at its timeout, its signal is aborted, and the registry stops waiting", () => {
  it.each([
    ["the tool's timeoutMs overrides toolTimeoutMs", { timeoutMs: 20 }, 60_000, 20],
    ["toolTimeoutMs applies when the tool has none", {}, 30, 30],
  ])("%s", async (_name, toolLimits, toolTimeoutMs, expectedTimeoutMs) => {
    const clock = recordingClock();
    let toolSignal: AbortSignal | undefined;
    const reports: IToolErrorReport[] = [];
    const registry = new ToolRegistry(
      {
        tools: [
          echoTool({
            ...toolLimits,
            endsRun: true,
            // Ignores the signal: the registry must stop waiting anyway.
            execute: ({ abortSignal }) => {
              toolSignal = abortSignal;
              return never();
            },
          }),
        ],
        toolTimeoutMs,
        onToolError: (report) => {
          reports.push(report);
        },
      },
      { clock },
    );
    const result = await registry.execute(callRequest("echo", { text: "x" }));
    expect(clock.delays).toEqual([expectedTimeoutMs]);
    expect(result).toMatchObject({
      isError: true,
      outcome: "timeout",
      status: 504,
      errorCode: gatewayToolCodes.TOOL_TIMEOUT,
      endsRun: false,
    });
    expect(result.output).toBeUndefined();
    expect(toolSignal?.aborted).toBe(true);
    expect(toolSignal?.reason).toMatchObject({ name: "TimeoutError" });
    expect(reports).toMatchObject([{ toolName: "echo", modelText: result.text }]);
  });

  it("a tool that rejects when its signal aborts still reads as a timeout, not an error", async () => {
    const registry = new ToolRegistry({
      tools: [
        echoTool({
          timeoutMs: 20,
          execute: ({ abortSignal }) =>
            new Promise((_resolve, reject) =>
              abortSignal.addEventListener("abort", () => reject(abortSignal.reason)),
            ),
        }),
      ],
    });
    expect(await registry.execute(callRequest("echo", { text: "x" }))).toMatchObject({
      outcome: "timeout",
      status: 504,
    });
  });

  it("a call that returns in time clears its timer", async () => {
    const clock = recordingClock();
    const registry = new ToolRegistry({ tools: [echoTool()] }, { clock });
    expect(await registry.execute(callRequest("echo", { text: "x" }))).toMatchObject({ outcome: "ok" });
    expect(clock.cleared).toBe(1);
  });

  it("durationMs is measured with the injected clock", async () => {
    const registry = new ToolRegistry({ tools: [echoTool()] }, { clock: steppingClock([1_000, 1_250]) });
    expect(await registry.execute(callRequest("echo", { text: "x" }))).toMatchObject({ durationMs: 250 });
  });
});

describe("the caller's abort signal (run cancellation)", () => {
  it("aborting it mid-call aborts the tool's signal and resolves as cancelled at once", async () => {
    const caller = new AbortController();
    let toolSignal: AbortSignal | undefined;
    const registry = new ToolRegistry({
      tools: [
        echoTool({
          endsRun: true,
          execute: ({ abortSignal }) => {
            toolSignal = abortSignal;
            queueMicrotask(() => caller.abort("run cancelled"));
            return never();
          },
        }),
      ],
    });
    const result = await registry.execute(callRequest("echo", { text: "x" }, { abortSignal: caller.signal }));
    expect(result).toMatchObject({
      isError: true,
      outcome: "cancelled",
      errorCode: gatewayToolCodes.CALL_CANCELLED,
      endsRun: false,
    });
    expect(toolSignal?.aborted).toBe(true);
    expect(toolSignal?.reason).toBe("run cancelled");
  });

  it("an already aborted signal never starts the tool", async () => {
    let started = false;
    // A clock that stands still: the call takes no time, whatever millisecond the wall clock crosses.
    const registry = new ToolRegistry(
      {
        tools: [
          echoTool({
            execute: async () => {
              started = true;
              return "ran";
            },
          }),
        ],
      },
      { clock: steppingClock([1_000]) },
    );
    const result = await registry.execute(
      callRequest("echo", { text: "x" }, { abortSignal: AbortSignal.abort() }),
    );
    expect(result).toMatchObject({ outcome: "cancelled", durationMs: 0 });
    expect(started).toBe(false);
  });

  it("a call that returns in time stops listening to the caller's signal", async () => {
    const caller = new AbortController();
    let toolSignal: AbortSignal | undefined;
    const registry = new ToolRegistry({
      tools: [
        echoTool({
          execute: async ({ abortSignal }) => {
            toolSignal = abortSignal;
            return "done";
          },
        }),
      ],
    });
    await registry.execute(callRequest("echo", { text: "x" }, { abortSignal: caller.signal }));
    caller.abort();
    expect(toolSignal?.aborted).toBe(false);
  });
});

describe("rule 9 (design decision D60): longer output is truncated for the model with a visible marker; the full output stays", () => {
  const longText = "x".repeat(1_000);

  it.each([
    ["the tool's maxOutputChars overrides the registry's", { maxOutputChars: 100 }, 20_000, 100],
    ["the registry's maxOutputChars applies when the tool has none", {}, 200, 200],
  ])("%s", async (_name, toolLimits, maxOutputChars, expectedLimit) => {
    const registry = new ToolRegistry({
      tools: [echoTool({ ...toolLimits, execute: async () => longText })],
      maxOutputChars,
    });
    const result = await registry.execute(callRequest("echo", { text: "x" }));
    expect(result.text.length).toBeLessThanOrEqual(expectedLimit);
    expect(result.text.length).toBeGreaterThan(expectedLimit - 5);
    expect(result.truncatedChars).toBe(
      1_000 - (expectedLimit - truncationMarker(result.truncatedChars ?? 0).length),
    );
    expect(result.text.endsWith(`[truncated ${result.truncatedChars} characters]`)).toBe(true);
    expect(result.output).toBe(longText);
  });

  it("output within the limit is read whole, as JSON for objects, with no truncatedChars", async () => {
    const output = { orderId: "42", items: [1, 2] };
    const registry = new ToolRegistry({ tools: [echoTool({ execute: async () => output })] });
    const result = await registry.execute(callRequest("echo", { text: "x" }));
    expect(result).toMatchObject({ isError: false, outcome: "ok", text: JSON.stringify(output), output });
    expect(result).not.toHaveProperty("truncatedChars");
  });
});
