import { describe, expect, it } from "vitest";
import { askToolNameOf, askToolOf } from "../../../../src/api/mcp/ask-tool.js";

describe("the ask tool", () => {
  it.each([
    ["tollgate", "ask_tollgate"],
    ["helpdesk", "ask_helpdesk"],
    ["Billing Desk (EU)", "ask_Billing_Desk__EU_"],
    ["orders.v2-beta", "ask_orders.v2-beta"],
    ["x".repeat(200), `ask_${"x".repeat(124)}`],
  ])("is named after the gateway %j: %s", (gatewayName, toolName) => {
    expect(askToolNameOf(gatewayName)).toBe(toolName);
  });

  it("takes POST /v1/ask's arguments, bounded by the server's longest wait, and no output schema of its own", () => {
    const tool = askToolOf({ name: "helpdesk" }, 30_000);
    expect(tool.inputSchema).toMatchObject({
      type: "object",
      required: ["input"],
      additionalProperties: false,
      properties: { timeoutMs: { maximum: 30_000 }, userContext: { required: ["userId"] } },
    });
    expect(Object.keys(tool.inputSchema.properties ?? {}).toSorted()).toEqual(
      [
        "input",
        "maxSteps",
        "maxToolCalls",
        "maxTotalTokens",
        "metadata",
        "model",
        "tenant",
        "threadId",
        "timeoutMs",
        "userContext",
      ].toSorted(),
    );
    expect(tool.outputSchema).toBeUndefined();
    expect(tool.execution).toEqual({ taskSupport: "optional" });
  });

  it("declares the gateway's structured answer as its output schema", () => {
    const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
    expect(askToolOf({ name: "helpdesk", output: { schema, name: "answer" } }, 30_000).outputSchema).toEqual(
      schema,
    );
  });
});
