import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parsePromptScripts } from "../../../src/model/scripted/prompt-scripts.js";
import { decideScriptedReply } from "../../../src/model/scripted/script-interpreter.js";

const supportDeskScripts = parsePromptScripts(
  JSON.parse(
    readFileSync(new URL("../../../examples/support-desk/model-scripts.json", import.meta.url), "utf8"),
  ),
);

/** The model's reply to `text` after `replies` earlier replies (each a tool call answered by a tool message). */
function replyTo(text: string, replies = 0) {
  const messages: Array<Record<string, unknown> & { role: string }> = [{ role: "user", content: text }];
  for (let index = 0; index < replies; index += 1) {
    messages.push({ role: "assistant", tool_calls: [{ id: `c${index}` }] }, { role: "tool", content: "{}" });
  }
  return decideScriptedReply({ messages, toolsOffered: true }, new Map(), supportDeskScripts);
}

describe("scripts chosen by the prompt (model-server --scripts)", () => {
  it.each([
    ["Where is my order A-1001?", 0, "classify_request"],
    ["where is my order A-1001", 1, "lookup_order"],
    ["Refund order A-1002, it arrived broken", 0, "lookup_order"],
    ["Refund order A-1002, it arrived broken", 1, "refund"],
  ])("%j, reply %i: calls %s", (text, replies, toolName) => {
    const decision = replyTo(text, replies);
    expect(decision).toMatchObject({ kind: "reply", reply: { kind: "tool-calls" } });
    if (decision.kind === "reply" && decision.reply.kind === "tool-calls") {
      expect(decision.reply.toolCalls.map((call) => call.name)).toEqual([toolName]);
    }
  });

  it("a message no rule matches is echoed, as before", () => {
    expect(replyTo("Hello")).toMatchObject({ reply: { kind: "text", text: "echo: Hello" } });
  });

  it("a script in the message wins over the rules", () => {
    const inline = JSON.stringify({ script: [{ text: "inline" }], prompt: "Where is my order A-1001?" });
    expect(replyTo(inline)).toMatchObject({ reply: { kind: "text", text: "inline" } });
  });

  it.each([
    [{ match: "x" }, /\[0\]\.script/],
    [[{ match: "(", script: [{ text: "a" }] }], /\[0\]\.match: Invalid regular expression/],
    [[{ match: "x", script: [{ call: [] }] }], /script\[0\]/],
    [[{ match: "x", script: [{ text: "a" }], extra: 1 }], /extra/],
  ])("an invalid rule file is refused, naming the rule: %j", (json, message) => {
    expect(() => parsePromptScripts(Array.isArray(json) ? json : [json])).toThrow(message);
  });
});
