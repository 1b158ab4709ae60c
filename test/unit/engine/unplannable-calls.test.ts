import { describe, expect, it } from "vitest";
import type { IToolPolicyConfig } from "../../../src/contracts/index.js";
import { argumentsValueOf, rawInputOf } from "../../../src/engine/index.js";
import { hiddenToolFailure, unknownToolFailure } from "../../../src/tools/index.js";
import { answer, call, callTools, type IScriptedCall, playRun, rawCall, resultOf } from "./driver.js";
import { runToolsOf } from "./engine-tools.js";

/**
 * D72 (hidden tools): a call the engine can settle without asking the policy — a hidden or unknown tool,
 * arguments that are not JSON or fail the schema — is settled when the reply is applied, as an error the
 * model reads. It is never decided nor dispatched, and the other calls of its step go on as if it were not
 * there.
 */
interface IRow {
  name: string;
  /** Called in step 1 (after one step of `note`), between two good calls. */
  bad: IScriptedCall;
  policy?: IToolPolicyConfig;
  selection?: { tools?: string[]; additionalTools?: string[] };
  expected: { status: number; errorCode: string; outcome: string; text: string | RegExp };
}

const hidden = (name: string) => ({ ...pick(hiddenToolFailure(name)), text: hiddenToolFailure(name).text });
const unknown = (name: string) => ({
  ...pick(unknownToolFailure(name)),
  text: unknownToolFailure(name).text,
});
function pick(failure: { status: number; errorCode: string | number; outcome: string }) {
  return { status: failure.status, errorCode: String(failure.errorCode), outcome: failure.outcome };
}

const rows: IRow[] = [
  {
    name: "a tool whose visibleWhen hides it at this step",
    bad: call("classify"),
    expected: hidden("classify"),
  },
  {
    name: "a tool whose visibleWhen throws",
    bad: call("broken_visibility"),
    expected: hidden("broken_visibility"),
  },
  {
    name: "a tool not yet revealed (visibleWhen on executed)",
    bad: call("report"),
    expected: hidden("report"),
  },
  {
    name: "a tool whose `requires` is not met",
    bad: call("refund", { amount: 5 }),
    policy: { requires: { refund: ["lookup"] } },
    expected: hidden("refund"),
  },
  {
    name: "a tool hidden by denyTags",
    bad: call("admin"),
    policy: { denyTags: ["admin"] },
    expected: hidden("admin"),
  },
  {
    name: "a tool without an allowed tag",
    bad: call("admin"),
    policy: { allowTags: ["notes", "orders"] },
    expected: hidden("admin"),
  },
  { name: "a name the gateway does not know", bad: call("nope"), expected: unknown("nope") },
  { name: "__proto__", bad: call("__proto__"), expected: unknown("__proto__") },
  { name: "constructor", bad: call("constructor"), expected: unknown("constructor") },
  { name: "toString", bad: call("toString"), expected: unknown("toString") },
  {
    name: "a default tool the request's `tools` left out",
    bad: call("refund", { amount: 5 }),
    selection: { tools: ["note", "lookup"] },
    expected: unknown("refund"),
  },
  { name: "an extra tool the request did not add", bad: call("extra"), expected: unknown("extra") },
  {
    name: "arguments that are not JSON",
    bad: rawCall("lookup", '{"orderId": 42'),
    expected: {
      status: 400,
      errorCode: "TG_INVALID_ARGUMENTS",
      outcome: "invalid_input",
      text: /^code: TG_INVALID_ARGUMENTS, status: 400, userMessage: The arguments of the call to "lookup" were not valid JSON \(.+\)\. Send the arguments as one JSON object and call again\.$/,
    },
  },
  {
    name: "arguments that fail the schema",
    bad: call("lookup", { orderId: "" }),
    expected: {
      status: 400,
      errorCode: "TG_INVALID_INPUT",
      outcome: "invalid_input",
      text: /^code: TG_INVALID_INPUT, status: 400, userMessage: The input is not valid: orderId: .+\. Fix these fields and call again\.$/,
    },
  },
  {
    name: "arguments of the wrong type for a predicate-policy tool (never reaches the predicate)",
    bad: call("refund", { amount: "a lot" }),
    expected: {
      status: 400,
      errorCode: "TG_INVALID_INPUT",
      outcome: "invalid_input",
      text: /^code: TG_INVALID_INPUT, status: 400, userMessage: The input is not valid: amount: /,
    },
  },
  {
    name: "a JSON array instead of an object",
    bad: rawCall("lookup", "[1, 2]"),
    expected: {
      status: 400,
      errorCode: "TG_INVALID_INPUT",
      outcome: "invalid_input",
      text: /^code: TG_INVALID_INPUT/,
    },
  },
];

describe("D72 (hidden tools): calls settled at once, never dispatched; the step's other calls unaffected", () => {
  it.each(rows)("$name", async ({ bad, policy, selection, expected }) => {
    const played = await playRun({
      tools: runToolsOf(undefined, policy, selection),
      request: selection ?? {},
      replies: [
        callTools([call("note")]),
        callTools([call("note", { value: "before" }), bad, call("lookup", { orderId: "42" })]),
        answer("Done."),
      ],
    });
    const result = resultOf(played, "s1-c1");
    expect(result).toMatchObject({
      toolName: bad.name,
      step: 1,
      isError: true,
      status: expected.status,
      errorCode: expected.errorCode,
      outcome: expected.outcome,
      durationMs: 0,
      // Nothing parsed by a schema: the input is what the model sent, as a JSON value.
      input: argumentsValueOf(bad.argumentsJson),
    });
    expect(result.text).toMatch(expected.text);
    expect(result).not.toHaveProperty("verdict");
    expect(result).not.toHaveProperty("output");
    // Never decided, never dispatched; the two good calls went on as one wave.
    expect(played.trace.slice(4)).toEqual(["model", "decide c0 c2", "wait c0 c2", "settle", "model"]);
    expect(played.dispatched).toEqual(["s0-c0", "s1-c0", "s1-c2"]);
    expect(played.verdicts.map(([key]) => key)).not.toContain("s1-c1");
    expect(resultOf(played, "s1-c0")).toMatchObject({ outcome: "ok", isError: false });
    expect(resultOf(played, "s1-c2")).toMatchObject({ outcome: "ok", isError: false });
    // The model reads the failure in the tool message of its call, in order.
    expect(played.state.messages.slice(-5, -1)).toEqual([
      expect.objectContaining({ role: "assistant" }),
      { role: "tool", toolCallId: "call_1_0", content: '{"ran":"s1-c0"}' },
      { role: "tool", toolCallId: "call_1_1", content: result.text },
      { role: "tool", toolCallId: "call_1_2", content: '{"ran":"s1-c2"}' },
    ]);
  });

  it("the call is settled in the very state applyModelReply returns", async () => {
    const played = await playRun({
      tools: runToolsOf(),
      replies: [callTools([call("nope"), call("note")]), answer("Done.")],
      pauseBefore: (action) => action.type === "decide",
    });
    expect(played.state.step?.calls.map((planned) => planned.state)).toEqual(["settled", "pending"]);
  });

  it("a reply whose every call is settled at once goes straight to settle-step", async () => {
    const played = await playRun({
      tools: runToolsOf(),
      replies: [callTools([call("nope"), rawCall("note", "not json"), call("report")]), answer("Sorry.")],
    });
    expect(played.trace).toEqual(["model", "settle", "model"]);
    expect(played.state.toolResults.map((result) => result.outcome)).toEqual([
      "unknown_tool",
      "invalid_input",
      "hidden",
    ]);
  });

  it("empty arguments are a call without arguments ({}), not an error", async () => {
    const played = await playRun({
      tools: runToolsOf(),
      replies: [callTools([rawCall("note", "  ")]), answer("Done.")],
    });
    expect(resultOf(played, "s0-c0")).toMatchObject({ outcome: "ok", input: {} });
  });

  it("D9.1 (issue 9, defect 1): the call carries the model's arguments as sent, never the parsed input", async () => {
    const played = await playRun({
      tools: runToolsOf(),
      replies: [callTools([call("check", {})]), answer("Done.")],
      pauseBefore: (action) => action.type === "wait-children",
    });
    const planned = played.state.step!.calls[0]!;
    expect(planned).not.toHaveProperty("input");
    expect(planned.argumentsJson).toBe("{}");
    expect(rawInputOf(planned)).toEqual({});
  });
});
