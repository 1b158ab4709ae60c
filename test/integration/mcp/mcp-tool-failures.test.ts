import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineGateway } from "../../../src/gateway/index.js";
import { type IHttpMcpServer, startHttpMcpServer } from "../../fixtures/mcp-test-server.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";

// An MCP tool's large output and its server's transport failure, through a real worker, real Redis and
// BullMQ, the test MCP server over streamable HTTP and the scripted model through the real openai SDK.

const user = { userId: "u-mcp-failures" };
const genericLine = /^code: TG_TOOL_FAILED, status: 500, userMessage: /;

describe("MCP tools: a large output, a server answering 500", () => {
  let shop: IHttpMcpServer;
  let harness: IHarness;

  beforeAll(async () => {
    shop = await startHttpMcpServer();
    const gateway = defineGateway({
      tools: [],
      maxOutputChars: 300,
      mcpServers: { shop: { url: shop.url } },
    });
    harness = await createHarness(gateway, "mcp-failures");
    await harness.startWorker();
  });
  afterAll(async () => {
    await harness.close();
    await shop.close();
  });

  it("an output over maxOutputChars is truncated with the marker for the model and stored whole once", async () => {
    const chars = 50_000;
    const response = await harness.client.ask({
      input: script({ calls: [{ name: "shop__big", input: { chars } }] }, { text: "done" }),
      userContext: user,
    });
    expect(response.status).toBe("completed");
    const [big] = response.toolResults;
    expect(big).toMatchObject({ toolName: "shop__big", outcome: "ok", truncatedChars: expect.any(Number) });
    expect(big!.text.length).toBeLessThanOrEqual(300);
    expect(big!.text).toMatch(new RegExp(`…\\[truncated ${big!.truncatedChars} characters\\]$`));
    // What the model read in its next request is that text, not the whole output.
    const toolMessage = harness.model
      .requests()
      .at(-1)
      ?.messages?.find((message) => message.role === "tool");
    expect(toolMessage?.content).toBe(big!.text);
    // The whole output comes back to a reader of the run.
    expect(big!.output).toBe("x".repeat(chars));

    // Stored whole exactly once: in the run's outputs (one field, this call's), nowhere else.
    const runtime = clientInternals(harness.client).runtimeOf(response.runId);
    const outputsKey = runtime.keys.runOutputs(response.runId);
    expect(await runtime.redis.hkeys(outputsKey)).toEqual([big!.callId]);
    expect(await runtime.redis.hget(outputsKey, big!.callId)).toBe(JSON.stringify("x".repeat(chars)));
    const whole = "x".repeat(chars);
    const state = (await runtime.redis.hget(runtime.keys.run(response.runId), "state")) ?? "";
    expect(state).not.toContain(whole);
    const events = JSON.stringify(
      await runtime.redis.xrange(runtime.keys.runEvents(response.runId), "-", "+"),
    );
    expect(events).not.toContain(whole);
    const toolJob = await runtime.queues.tools.getJob(big!.callId);
    expect(JSON.stringify(toolJob?.returnvalue ?? null)).not.toContain(whole);
  });

  it("a server answering 500 is a transport failure: the model reads the generic 500 line and the run goes on", async () => {
    shop.answerServerErrors(true);
    let response: Awaited<ReturnType<IHarness["client"]["ask"]>>;
    try {
      response = await harness.client.ask({
        input: script(
          { calls: [{ name: "shop__echo", input: { text: "while broken" } }] },
          { text: "The shop's tool failed; I will say so." },
        ),
        userContext: user,
      });
    } finally {
      shop.answerServerErrors(false);
    }
    expect(response.status).toBe("completed");
    expect(response.toolResults[0]).toMatchObject({
      toolName: "shop__echo",
      outcome: "error",
      status: 500,
      errorCode: "TG_TOOL_FAILED",
    });
    expect(response.toolResults[0]?.text).toMatch(genericLine);
    expect(response.text).toBe("The shop's tool failed; I will say so.");
    expect(shop.ledger.calls.some((call) => (call.input as { text?: string }).text === "while broken")).toBe(
      false,
    );

    // The server answers again: the next call goes through.
    const after = await harness.client.ask({
      input: script({ calls: [{ name: "shop__echo", input: { text: "fixed" } }] }, { text: "done" }),
      userContext: user,
    });
    expect(after.toolResults[0]).toMatchObject({ outcome: "ok", text: "fixed" });
  });
});
