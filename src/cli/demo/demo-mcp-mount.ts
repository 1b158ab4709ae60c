import { fileURLToPath } from "node:url";
import { defineGateway, type IGateway } from "../../gateway/index.js";

/** The name the demo mounts its MCP server under: its tools are `warehouse__<tool>`, tagged `mcp:warehouse`. */
export const DEMO_MCP_SERVER = "warehouse";

/**
 * The gateway with the demo's own MCP server mounted (stdio): the compiled server beside this module in an
 * installed package (node alone), the TypeScript source through tsx's loader in a checkout.
 */
export function withDemoMcpServer(gateway: IGateway): IGateway {
  const { definition } = gateway;
  return defineGateway({
    ...definition,
    mcpServers: { ...(definition.mcpServers ?? {}), [DEMO_MCP_SERVER]: demoMcpServerCommand() },
  });
}

/** How a worker starts the demo's MCP server. */
export function demoMcpServerCommand(): { command: string; args: string[] } {
  const source = import.meta.url.endsWith(".ts");
  const server = fileURLToPath(new URL(`./demo-mcp-server.${source ? "ts" : "js"}`, import.meta.url));
  // tsx is a dependency of the package; resolved from here, whatever the demo's working directory.
  const args = source ? ["--import", import.meta.resolve("tsx"), server] : [server];
  return { command: process.execPath, args };
}

/** Where the demo's MCP server runs from, for the demo's header. */
export function demoMcpServerDescription(): string {
  const { args } = demoMcpServerCommand();
  return `${DEMO_MCP_SERVER} (stdio, a child process the demo starts: ${args.at(-1)})`;
}
