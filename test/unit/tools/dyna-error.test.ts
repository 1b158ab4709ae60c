import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import type { IToolErrorReport } from "../../../src/contracts/index.js";
import { dynaError, ToolRegistry } from "../../../src/tools/index.js";
import { callRequest, echoTool } from "./fixtures.js";

/** The npm package dyna-error 4.0.13 as published (test/fixtures/dyna-error-4.0.13), which users' tools may still import. */
const published = createRequire(import.meta.url)(
  "../../fixtures/dyna-error-4.0.13/index.cjs",
) as typeof import("../../fixtures/dyna-error-4.0.13/index.cjs");

/** What differs between two calls by design: the time and the stack (its first line is the message). */
function comparable(error: object): Record<string, unknown> {
  const { date, stack, ...rest } = error as { date?: unknown; stack?: unknown };
  return {
    ...rest,
    date: date instanceof Date ? "a Date" : date,
    stackHead: typeof stack === "string" ? stack.split("\n")[0] : stack,
  };
}

const nativeError = new Error("socket hang up");

describe("Tollgate's dynaError makes what the package dyna-error 4.0.13 makes", () => {
  it.each<[string, unknown]>([
    ["a message only", { message: "Something is invalid" }],
    [
      "every field, the message prefixed with the code",
      {
        message: "Something is invalid",
        userMessage: "Please retry",
        code: 330010,
        status: 500,
        canRetry: false,
        parentError: { message: "Parent error" },
        validationErrors: { name: "Is required" },
        data: { userId: 230130042 },
        userData: { level: "basic" },
        prefixMessageWithCode: true,
      },
    ],
    ["a code without the prefix", { message: "m", code: 7, userMessage: "u" }],
    ["no stack asked", { message: "m", stack: false }],
    ["a string", "Something is invalid"],
    ["a native Error (its stack kept)", nativeError],
    ["a value of unknown nature", 42],
    ["null", null],
    ["an object without a message", { userMessage: "u" }],
  ])("%s", (_name, argument) => {
    const ours = dynaError(argument);
    const theirs = published.dynaError(argument);
    expect(comparable(ours)).toEqual(comparable(theirs));
    expect(Object.keys(ours)).toEqual(Object.keys(theirs));
    expect(ours instanceof Error).toBe(theirs instanceof Error);
  });
});

describe("an error a tool throws with the package dyna-error itself", () => {
  it("speaks to the model as Tollgate's own dynaError does, and is reported as thrown", async () => {
    const reports: IToolErrorReport[] = [];
    const errors = [
      published.dynaError({ message: "db down", userMessage: "No order 4711.", code: 4711, status: 404 }),
      dynaError({ message: "db down", userMessage: "No order 4711.", code: 4711, status: 404 }),
    ];
    const results = [];
    for (const error of errors) {
      const registry = new ToolRegistry({
        tools: [echoTool({ execute: async () => Promise.reject(error) })],
        onToolError: (report) => {
          reports.push(report);
        },
      });
      results.push(await registry.execute(callRequest("echo", { text: "x" })));
    }
    for (const result of results) {
      expect(result).toMatchObject({
        outcome: "error",
        text: "code: 4711, status: 404, userMessage: No order 4711.",
        errorCode: 4711,
        status: 404,
      });
    }
    expect(reports.map((report) => report.error)).toEqual(errors);
  });
});
