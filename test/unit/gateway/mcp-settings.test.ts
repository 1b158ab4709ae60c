import { describe, expect, it } from "vitest";
import { EToolCallVerdict } from "../../../src/contracts/index.js";
import { TollgateError } from "../../../src/errors/index.js";
import { defineGateway, mcpToolDefsOf, mcpToolNamesOf } from "../../../src/gateway/index.js";
import { ToolRegistry } from "../../../src/tools/index.js";

describe("MCP tool names: <server>__<tool>, renamed where the model's rules forbid it", () => {
  it("keeps a name that fits, renames one that does not, and never gives two tools one name", () => {
    const names = mcpToolNamesOf("files", [
      "read_file",
      "getWeather",
      "list files",
      "a.b",
      "a_b",
      "x".repeat(80),
    ]);
    expect(names.map(({ name, renamed }) => [name, renamed])).toEqual([
      ["files__read_file", false],
      ["files__getWeather", false],
      ["files__list_files", true],
      ["files__a_b", true],
      [expect.stringMatching(/^files__a_b_[0-9a-f]{8}$/), true],
      [expect.stringMatching(/^files__x+_[0-9a-f]{8}$/), true],
    ]);
    expect(names[5]?.name).toHaveLength(64);
    expect(new Set(names.map(({ name }) => name)).size).toBe(names.length);
  });
});

describe("mcpServers in the gateway", () => {
  const list = {
    schemaVersion: 1 as const,
    tools: [
      {
        name: "shop__refund",
        server: "shop",
        mcpName: "refund",
        description: "Refunds.",
        inputSchema: { type: "object" },
      },
      { name: "old__gone", server: "old", mcpName: "gone", description: "", inputSchema: { type: "object" } },
    ],
  };

  it("gives each pinned tool the server's settings, the tool's over them, the mcp:<server> tag; drops unmounted servers", () => {
    const gateway = defineGateway({
      tools: [],
      mcpServers: {
        shop: {
          url: "http://127.0.0.1:1/mcp",
          timeoutMs: 1_000,
          tools: { refund: { policy: EToolCallVerdict.NEEDS_APPROVAL, timeoutMs: 50 } },
        },
      },
      policy: {
        requires: { shop__refund: ["shop__lookup"] },
        profiles: { ops: { approvals: ["mcp:shop"] } },
      },
    });
    const pinned = mcpToolDefsOf(gateway.settings.mcpServers, list, async () => "ran");
    expect(pinned.map(({ tool }) => tool.name)).toEqual(["shop__refund"]);
    expect(pinned[0]?.tool).toMatchObject({
      policy: EToolCallVerdict.NEEDS_APPROVAL,
      timeoutMs: 50,
      tags: ["mcp:shop"],
      isolation: "inline",
    });
    // A registry takes the <server>__ name from an MCP tool, never from an application's own tool.
    expect(new ToolRegistry({ tools: pinned.map(({ tool }) => tool) }).has("shop__refund")).toBe(true);
  });

  it.each([
    [
      "a server name that is not snake_case",
      { "Shop-1": { url: "http://127.0.0.1:1/mcp" } },
      "mcpServers.Shop-1",
    ],
    ["neither url nor command", { shop: { headers: {} } }, "mcpServers.shop"],
    [
      "an unknown setting of a tool",
      { shop: { url: "http://127.0.0.1:1/mcp", tools: { a: { timeoutMS: 1 } } } },
      "timeoutMS",
    ],
  ])("refuses %s as TG_INVALID_GATEWAY", (_case, mcpServers, named) => {
    let thrown: unknown;
    try {
      defineGateway({ tools: [], mcpServers: mcpServers as never });
    } catch (error) {
      thrown = error;
    }
    expect(TollgateError.is(thrown, "TG_INVALID_GATEWAY")).toBe(true);
    expect((thrown as Error).message).toContain(named);
  });

  it("a policy naming a tool of an unmounted server is still refused", () => {
    expect(() => defineGateway({ tools: [], policy: { requires: { shop__refund: [] } } })).toThrow(
      /shop__refund/,
    );
  });
});
