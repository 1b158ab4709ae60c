import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineGateway } from "../../../src/gateway/index.js";
import { type IHttpMcpServer, startHttpMcpServer } from "../../fixtures/mcp-test-server.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { captureLogger, type ICapturedLogger } from "../api/capture-logger.js";

// The patterns of an MCP server's schemas, through a real worker on real Redis and BullMQ, the test MCP
// server over streamable HTTP and the scripted model through the real openai SDK. A server writes the
// schema, the model (which a tenant prompts) the input: patterns must run in linear time.

const user = { userId: "u-mcp-patterns" };
/**
 * Long enough that a backtracking engine blocks the process far past the case's timeout (its time
 * doubles with each character: 30 took 6.5 s where the issue was found); RE2 answers at once.
 */
const attack = `${"a".repeat(33)}!`;

describe("MCP tools: the patterns of a server's schemas", () => {
  let shop: IHttpMcpServer;
  let harness: IHarness;
  let log: ICapturedLogger;

  beforeAll(async () => {
    shop = await startHttpMcpServer({ patternTools: true });
    harness = await createHarness(
      defineGateway({ tools: [], mcpServers: { shop: { url: shop.url } } }),
      "mcp-patterns",
    );
    log = captureLogger();
    await harness.startWorker({ logger: log.logger });
  });
  afterAll(async () => {
    await harness.close();
    await shop.close();
  });

  it("a catastrophic input pattern refuses a catastrophic input at once, and the server is not called", {
    timeout: 20_000,
  }, async () => {
    const before = shop.ledger.calls.length;
    const response = await harness.client.ask({
      input: script({ calls: [{ name: "shop__match_code", input: { code: attack } }] }, { text: "done" }),
      userContext: user,
    });
    expect(response.status).toBe("completed");
    expect(response.toolResults[0]).toMatchObject({
      toolName: "shop__match_code",
      outcome: "invalid_input",
      errorCode: "TG_INVALID_INPUT",
    });
    expect(response.toolResults[0]?.text).toContain('code: must match pattern "^(a+)+$"');
    expect(shop.ledger.calls.length).toBe(before);
  });

  it("an input that matches still reaches the server", async () => {
    const response = await harness.client.ask({
      input: script({ calls: [{ name: "shop__match_code", input: { code: "aaaa" } }] }, { text: "done" }),
      userContext: user,
    });
    expect(response.toolResults[0]).toMatchObject({ outcome: "ok", text: "matched aaaa" });
  });

  it("a tool whose input or output pattern needs backtracking is not mounted, and the worker says why", async () => {
    const response = await harness.client.ask({
      input: script(
        {
          calls: [
            { name: "shop__starts_with_x", input: { code: "x1" } },
            { name: "shop__make_code", input: {} },
          ],
        },
        { text: "done" },
      ),
      userContext: user,
    });
    expect(response.toolResults.map((part) => [part.toolName, part.outcome])).toEqual([
      ["shop__starts_with_x", "unknown_tool"],
      ["shop__make_code", "unknown_tool"],
    ]);
    expect(shop.ledger.calls.map((call) => call.tool)).not.toContain("starts_with_x");
    expect(shop.ledger.calls.map((call) => call.tool)).not.toContain("make_code");
    const offered =
      harness.model
        .requests()
        .at(-1)
        ?.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).toContain("shop__match_code");
    expect(offered).not.toContain("shop__starts_with_x");
    expect(offered).not.toContain("shop__make_code");
    const notMounted = log
      .lines()
      .filter((line) => line.msg === "an MCP tool whose schema Tollgate cannot check is not mounted");
    expect(notMounted).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          level: 50,
          mcpServer: "shop",
          mcpTool: "starts_with_x",
          schema: "inputSchema",
          schemaPath: "/properties/code/pattern",
          message: expect.stringMatching(/a lookahead .* needs a backtracking engine/),
        }),
        expect.objectContaining({
          mcpTool: "make_code",
          schema: "outputSchema",
          schemaPath: "/properties/code/pattern",
        }),
      ]),
    );
  });
});
