// The demo's MCP server: a warehouse's stock levels over stdio, started by the demo's worker as a child
// process (`tollgate demo` mounts it as the MCP server "warehouse"). Shipped in the package and run from
// dist with node alone: no network, nothing to install. Its stdout is the protocol; it logs nothing.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

/** The warehouse's stock, by SKU: the demo's data, not a real inventory. */
const stock: Record<string, { item: string; available: number; restockOn?: string }> = {
  "GRND-200": { item: "espresso grinder", available: 0, restockOn: "2026-03-28" },
  "HDPH-100": { item: "headphones", available: 14 },
};

const server = new McpServer({ name: "tollgate-demo-warehouse", version: "1.0.0" });
server.registerTool(
  "check_stock",
  {
    description: "How many of an item the warehouse has, by SKU, and when an item out of stock comes back.",
    inputSchema: { sku: z.string().describe("The item's SKU, such as GRND-200.") },
  },
  async ({ sku }) => {
    const entry = Object.hasOwn(stock, sku) ? stock[sku] : undefined;
    if (entry === undefined) {
      return { isError: true, content: [{ type: "text", text: `No item has the SKU ${sku}.` }] };
    }
    return {
      content: [{ type: "text", text: JSON.stringify({ sku, ...entry }) }],
      structuredContent: { sku, ...entry },
    };
  },
);
await server.connect(new StdioServerTransport());
