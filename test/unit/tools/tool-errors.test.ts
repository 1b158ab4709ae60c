import { describe, expect, it } from "vitest";
import type { IToolErrorReport } from "../../../src/contracts/index.js";
import { dynaError, gatewayToolCodes, ToolRegistry, unexpectedFailure } from "../../../src/tools/index.js";
import { callRequest, echoTool } from "./fixtures.js";

const secret = "SECRET-db.internal:5432";

/** Runs a tool that throws `error` (asynchronously, or synchronously when asked) and collects the reports. */
async function executeThrowing(error: unknown, options: { synchronous?: boolean; endsRun?: boolean } = {}) {
  const reports: IToolErrorReport[] = [];
  const registry = new ToolRegistry({
    tools: [
      echoTool({
        endsRun: options.endsRun ?? false,
        execute: options.synchronous
          ? () => {
              throw error;
            }
          : async () => {
              throw error;
            },
      }),
    ],
    onToolError: (report) => {
      reports.push(report);
    },
  });
  const result = await registry.execute(callRequest("echo", { text: "x" }));
  return { result, reports };
}

describe("rule 10: a dynaError with a userMessage is read as exactly one line; message and data never reach the model", () => {
  it.each([
    [
      "code, status and canRetry: false",
      {
        code: 4711,
        status: 404,
        userMessage: "No order 4711; ask for the number on the invoice.",
        canRetry: false,
      },
      "code: 4711, status: 404, userMessage: No order 4711; ask for the number on the invoice. Do not retry this call.",
      4711,
      404,
    ],
    [
      "canRetry: true adds nothing",
      { code: 12, status: 503, userMessage: "The shop is offline.", canRetry: true },
      "code: 12, status: 503, userMessage: The shop is offline.",
      12,
      503,
    ],
    [
      "no code: the gateway's TG_TOOL_ERROR; no status: 500",
      { userMessage: "Try later." },
      "code: TG_TOOL_ERROR, status: 500, userMessage: Try later.",
      gatewayToolCodes.TOOL_ERROR,
      500,
    ],
    [
      "a userMessage over lines stays one line",
      { code: 1, status: 400, userMessage: "First.\nSecond." },
      "code: 1, status: 400, userMessage: First. Second.",
      1,
      400,
    ],
  ])("%s", async (_name, fields, text, errorCode, status) => {
    const error = dynaError({ message: `query failed on ${secret}`, data: { secret }, ...fields });
    const { result, reports } = await executeThrowing(error);
    expect(result).toMatchObject({
      isError: true,
      outcome: "error",
      text,
      errorCode,
      status,
      endsRun: false,
    });
    expect(result.output).toBeUndefined();
    expect(JSON.stringify(result)).not.toContain(secret);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({
      toolName: "echo",
      callId: "run-1-s0-c0",
      runId: "run-1",
      threadId: "thread-1",
    });
    expect(reports[0]?.error).toBe(error);
    expect(reports[0]?.modelText).toBe(text);
  });

  it("a string code and a status of a dynaError-shaped object are kept", async () => {
    const error = { isDynaError: true, message: secret, userMessage: "Nope.", code: "SHOP_42", status: 409 };
    const { result } = await executeThrowing(error);
    expect(result).toMatchObject({
      text: "code: SHOP_42, status: 409, userMessage: Nope.",
      errorCode: "SHOP_42",
    });
  });

  it("a status or code of the wrong type falls back to the gateway's", async () => {
    const error = {
      isDynaError: true,
      userMessage: "Nope.",
      code: { secret },
      status: "404",
      canRetry: "no",
    };
    const { result } = await executeThrowing(error);
    expect(result.text).toBe("code: TG_TOOL_ERROR, status: 500, userMessage: Nope.");
  });
});

describe("rule 11: any other error reads as a generic status-500 line saying the input was not the cause", () => {
  const plainError = new Error(`connect ECONNREFUSED ${secret}`);
  it.each<[string, unknown, boolean]>([
    ["a plain Error", plainError, false],
    ["an Error thrown synchronously", plainError, true],
    [
      "a dynaError without userMessage",
      dynaError({ message: secret, code: 99, status: 404, data: { secret } }),
      false,
    ],
    ["a dynaError with a blank userMessage", dynaError({ message: secret, userMessage: "  " }), false],
    ["an object that only looks like a dynaError", { isDynaError: "true", userMessage: secret }, false],
    ["a thrown string", secret, false],
    ["a thrown undefined", undefined, false],
    ["a thrown null", null, false],
    ["a thrown number", 42, false],
  ])("%s", async (_name, error, synchronous) => {
    const { result, reports } = await executeThrowing(error, { synchronous });
    const expected = unexpectedFailure();
    expect(result).toMatchObject({
      isError: true,
      outcome: "error",
      status: 500,
      errorCode: gatewayToolCodes.TOOL_FAILED,
      text: expected.text,
    });
    expect(result.text).toContain("the input was not the cause");
    expect(JSON.stringify(result)).not.toContain(secret);
    expect(reports).toHaveLength(1);
    expect(reports[0]?.error).toBe(error);
    expect(reports[0]?.modelText).toBe(expected.text);
  });
});

describe("rule 12: a thrown error never ends the run and never escapes execute", () => {
  it.each([
    ["a plain Error", new Error("boom")],
    ["a dynaError", dynaError({ message: "m", userMessage: "Not found." })],
  ])("%s with endsRun: true", async (_name, error) => {
    const { result } = await executeThrowing(error, { endsRun: true });
    expect(result.endsRun).toBe(false);
    expect(result.isError).toBe(true);
  });

  it.each([
    [
      "throws",
      () => {
        throw new Error("logger down");
      },
    ],
    ["rejects", () => Promise.reject(new Error("logger down"))],
  ])("an onToolError that %s breaks nothing", async (_name, onToolError) => {
    const registry = new ToolRegistry({
      tools: [echoTool({ execute: () => Promise.reject(new Error("boom")) })],
      onToolError,
    });
    expect(await registry.execute(callRequest("echo", { text: "x" }))).toMatchObject({
      outcome: "error",
      status: 500,
    });
  });

  it("without onToolError an error is still a result", async () => {
    const registry = new ToolRegistry({
      tools: [echoTool({ execute: () => Promise.reject(new Error("boom")) })],
    });
    expect(await registry.execute(callRequest("echo", { text: "x" }))).toMatchObject({ outcome: "error" });
  });
});
