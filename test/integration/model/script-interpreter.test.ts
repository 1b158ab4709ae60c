// The script interpretation is pure: this file needs no server. It lives here because the model
// folder's tests are kept together (test/unit is another team's folder for now).
import { describe, expect, it } from "vitest";
import type { IConversationMessage } from "../../../src/model/scripted/conversation.js";
import {
  decideScriptedReply,
  type IScriptedRequest,
  planScript,
  type TScriptedDecision,
} from "../../../src/model/scripted/script-interpreter.js";
import { parseScript, type TScriptEntry } from "../../../src/model/scripted/script-schema.js";

function scriptText(script: unknown[]): string {
  return JSON.stringify({ script });
}

function conversation(userText: string, ...rest: IConversationMessage[]): IConversationMessage[] {
  return [{ role: "system", content: "be brief" }, { role: "user", content: userText }, ...rest];
}

/** What the server does: decide, and count an error as served. */
function serve(request: IScriptedRequest, servedErrorCounts: Map<string, number>): TScriptedDecision {
  const decision = decideScriptedReply(request, servedErrorCounts);
  if (decision.kind === "error") {
    servedErrorCounts.set(decision.servedErrorKey, (servedErrorCounts.get(decision.servedErrorKey) ?? 0) + 1);
  }
  return decision;
}

/** A short label per decision, so that a sequence reads as one line. */
function label(decision: TScriptedDecision): string {
  switch (decision.kind) {
    case "error":
      return `error ${decision.status}`;
    case "invalid-script":
      return `invalid: ${decision.message}`;
    case "reply":
      return decision.reply.kind === "text"
        ? decision.reply.text
        : decision.reply.toolCalls.map((call) => `${call.id}:${call.name}(${call.argumentsJson})`).join(",");
  }
}

function entriesOf(script: unknown[]): TScriptEntry[] {
  const parsed = parseScript(scriptText(script));
  if (parsed.kind !== "script") {
    throw new Error(`not a script: ${JSON.stringify(parsed)}`);
  }
  return parsed.entries;
}

const assistantCalled: IConversationMessage = {
  role: "assistant",
  content: null,
  tool_calls: [{ id: "call_0_0", type: "function", function: { name: "lookup", arguments: "{}" } }],
};

describe("planScript: positions count only replies", () => {
  it("attaches each status entry to the reply that follows it, and trailing ones to the end", () => {
    const plan = planScript(
      entriesOf([
        { status: 429 },
        { text: "a" },
        { status: 500 },
        { status: 503 },
        { text: "b" },
        { status: 502 },
      ]),
    );
    expect(plan.replies).toEqual([{ text: "a" }, { text: "b" }]);
    expect(plan.errorsBefore.map((errors) => errors.map((error) => error.entryIndex))).toEqual([
      [0],
      [2, 3],
      [5],
    ]);
  });

  it("has one (empty) error list per position plus the end for a script without errors", () => {
    expect(planScript(entriesOf([{ text: "a" }])).errorsBefore).toEqual([[], []]);
    expect(planScript([]).errorsBefore).toEqual([[]]);
  });
});

describe("decideScriptedReply: one-shot errors before a reply", () => {
  const script = scriptText([
    { status: 429 },
    { text: "a" },
    { status: 500 },
    { status: 503 },
    { text: "b" },
  ]);

  it.each([
    { position: 0, expected: ["error 429", "a", "a"] },
    { position: 1, expected: ["error 500", "error 503", "b", "b"] },
  ])(
    "serves the errors of position $position once each, in order, then the reply",
    ({ position, expected }) => {
      const counts = new Map<string, number>();
      const messages = conversation(script, ...Array.from({ length: position }, () => assistantCalled));
      const labels = expected.map(() => label(serve({ messages, toolsOffered: true }, counts)));
      expect(labels).toEqual(expected);
    },
  );

  it("tracks errors per conversation: another conversation with the same script fails again", () => {
    const counts = new Map<string, number>();
    const first = conversation(script);
    const second: IConversationMessage[] = [{ role: "system", content: "another run" }, ...first.slice(1)];
    expect(label(serve({ messages: first, toolsOffered: true }, counts))).toBe("error 429");
    expect(label(serve({ messages: first, toolsOffered: true }, counts))).toBe("a");
    expect(label(serve({ messages: second, toolsOffered: true }, counts))).toBe("error 429");
  });

  it.each([
    { entry: { status: 500, times: 3 }, expected: ["error 500", "error 500", "error 500", "ok", "ok"] },
    { entry: { status: 503, repeat: true }, expected: ["error 503", "error 503", "error 503", "error 503"] },
  ])("serves $entry as often as it says", ({ entry, expected }) => {
    const counts = new Map<string, number>();
    const messages = conversation(scriptText([entry, { text: "ok" }]));
    expect(expected.map(() => label(serve({ messages, toolsOffered: true }, counts)))).toEqual(expected);
  });

  it("serves trailing errors before the script's end only at the end position", () => {
    const counts = new Map<string, number>();
    const text = scriptText([{ calls: [{ name: "lookup", input: {} }] }, { status: 500 }]);
    const atEnd = conversation(text, assistantCalled, {
      role: "tool",
      tool_call_id: "call_0_0",
      content: "r1",
    });
    expect(label(serve({ messages: atEnd, toolsOffered: true }, counts))).toBe("error 500");
    expect(label(serve({ messages: atEnd, toolsOffered: true }, counts))).toBe("[script-end] r1");
    const pastEnd = [...atEnd, { role: "assistant", content: "[script-end] r1" }];
    expect(label(serve({ messages: pastEnd, toolsOffered: true }, new Map()))).toBe("[script-end] r1");
  });

  it("carries the entry's status, message, retry-after and delay", () => {
    const messages = conversation(
      scriptText([{ status: 429, message: "slow down", retryAfterMs: 0, delayMs: 5 }, { text: "a" }]),
    );
    expect(decideScriptedReply({ messages, toolsOffered: true }, new Map())).toMatchObject({
      kind: "error",
      status: 429,
      message: "slow down",
      retryAfterMs: 0,
      delayMs: 5,
    });
  });
});

describe("decideScriptedReply: replies", () => {
  it("sends the calls of an entry as one reply, with ids unique in the conversation", () => {
    const text = scriptText([
      {
        calls: [
          { name: "lookup", input: { id: "A1" } },
          { name: "broken", arguments: "not json" },
        ],
      },
      { calls: [{ name: "refund" }], delayMs: 7 },
    ]);
    expect(label(decideScriptedReply({ messages: conversation(text), toolsOffered: true }, new Map()))).toBe(
      'call_0_0:lookup({"id":"A1"}),call_0_1:broken(not json)',
    );
    const second = decideScriptedReply(
      { messages: conversation(text, assistantCalled, { role: "tool", content: "x" }), toolsOffered: true },
      new Map(),
    );
    expect(label(second)).toBe("call_1_0:refund({})");
    expect(second).toMatchObject({ delayMs: 7 });
  });

  it.each([
    {
      name: "no tools offered: [no-tools] and the previous step's tool results",
      messages: conversation(
        scriptText([{ calls: [{ name: "a" }, { name: "b" }] }, { text: "unused", delayMs: 9 }]),
        { ...assistantCalled, content: "thinking" },
        { role: "tool", tool_call_id: "call_0_0", content: "first" },
        {
          role: "tool",
          tool_call_id: "call_0_1",
          content: [
            { type: "text", text: "sec" },
            { type: "text", text: "ond" },
          ],
        },
      ),
      toolsOffered: false,
      expected: { kind: "reply", reply: { kind: "text", text: "[no-tools] first | second" }, delayMs: 9 },
    },
    {
      name: "no tools offered and no tool called yet: the bare prefix",
      messages: conversation(scriptText([{ text: "a" }])),
      toolsOffered: false,
      expected: { kind: "reply", reply: { kind: "text", text: "[no-tools]" }, delayMs: 0 },
    },
    {
      name: "past the end of the script",
      messages: conversation(scriptText([{ text: "done" }]), { role: "assistant", content: "done" }),
      toolsOffered: true,
      expected: { kind: "reply", reply: { kind: "text", text: "[script-end]" }, delayMs: 0 },
    },
    {
      name: "a plain user message is echoed",
      messages: conversation("hello there"),
      toolsOffered: true,
      expected: { kind: "reply", reply: { kind: "text", text: "echo: hello there" }, delayMs: 0 },
    },
    {
      name: "JSON without a script is echoed",
      messages: conversation('{"question":1}'),
      toolsOffered: false,
      expected: { kind: "reply", reply: { kind: "text", text: 'echo: {"question":1}' }, delayMs: 0 },
    },
    {
      name: "the newest user message decides, not an older scripted one",
      messages: [
        ...conversation(scriptText([{ text: "old" }])),
        { role: "assistant", content: "old" },
        { role: "user", content: "new" },
      ],
      toolsOffered: true,
      expected: { kind: "reply", reply: { kind: "text", text: "echo: new" }, delayMs: 0 },
    },
    {
      name: "no user message at all",
      messages: [{ role: "system", content: "s" }],
      toolsOffered: true,
      expected: { kind: "reply", reply: { kind: "text", text: "echo: " }, delayMs: 0 },
    },
  ])("$name", ({ messages, toolsOffered, expected }) => {
    expect(decideScriptedReply({ messages, toolsOffered }, new Map())).toEqual(expected);
  });
});

describe("parseScript: a broken script is refused with its reason", () => {
  it.each([
    { text: '{"script":"x"}', reason: '"script" must be an array' },
    { text: scriptText([{ text: "a" }, { call: [] }]), reason: "script[1]" },
    { text: scriptText([{ calls: [] }]), reason: "script[0]: calls" },
    { text: scriptText([{ status: 200 }]), reason: "script[0]: status" },
    { text: scriptText([{ status: 500, repeat: true, times: 2 }]), reason: "either repeat or times" },
    { text: scriptText([{ status: 500, stall: true }]), reason: "stall needs afterChunks" },
    {
      text: scriptText([{ calls: [{ name: "a", input: {}, arguments: "{}" }] }]),
      reason: "either input or arguments",
    },
    { text: scriptText([7]), reason: "expected an object" },
  ])("$reason", ({ text, reason }) => {
    const parsed = parseScript(text);
    expect(parsed.kind).toBe("invalid");
    expect(parsed.kind === "invalid" && parsed.message).toContain(reason);
    expect(decideScriptedReply({ messages: conversation(text), toolsOffered: true }, new Map()).kind).toBe(
      "invalid-script",
    );
  });

  it.each(["hello", "{not json", "[1,2]", '{"other":[]}'])("%s is no script", (text) => {
    expect(parseScript(text)).toEqual({ kind: "none" });
  });
});
