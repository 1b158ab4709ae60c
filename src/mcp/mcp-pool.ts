import type { Logger } from "pino";
import type { TMcpToolEntry, TMcpToolList } from "../contracts/index.js";
import { mcpToolNamesOf, type TMcpServersSettings, type TMcpToolCall } from "../gateway/index.js";
import {
  type IListedMcpTool,
  type IMcpBackoff,
  McpServerConnection,
  McpServerUnavailableError,
  type TMcpConnectionStatus,
} from "./mcp-connection.js";
import { outputOfMcpResult } from "./mcp-tool-result.js";
import { mcpToolSchemaProblem } from "./mcp-tool-schemas.js";

/** What the pool reports, for metrics. */
export interface IMcpPoolMetrics {
  mcpConnectFailed(server: string): void;
  mcpServerUp(server: string, up: boolean): void;
}

/** One server's state, as `/readyz` shows it. */
export interface IMcpServerState {
  server: string;
  status: TMcpConnectionStatus;
  tools: number;
  error?: string;
}

/**
 * A worker's connections to the gateway's MCP servers, one per server. A server that cannot be reached
 * does not stop the worker: its tools are absent from new runs until it answers (reconnecting with
 * backoff), and `states()` says which one is down.
 */
export class McpPool {
  readonly #connections = new Map<string, McpServerConnection>();
  readonly #entries = new Map<string, readonly TMcpToolEntry[]>();
  readonly #logger: Logger;
  readonly #onToolsRead: ((server: string, tools: readonly TMcpToolEntry[]) => void) | undefined;

  constructor(args: {
    servers: TMcpServersSettings;
    logger: Logger;
    metrics?: IMcpPoolMetrics | undefined;
    backoff?: Partial<IMcpBackoff>;
    /** Told each time a server's tool list is read (connected, or list_changed): the worker publishes it. */
    onToolsRead?: (server: string, tools: readonly TMcpToolEntry[]) => void;
  }) {
    this.#logger = args.logger;
    this.#onToolsRead = args.onToolsRead;
    const metrics = args.metrics;
    const events = {
      connectFailed: (server: string) => metrics?.mcpConnectFailed(server),
      statusChanged: (server: string, status: TMcpConnectionStatus) =>
        metrics?.mcpServerUp(server, status === "up"),
      toolsChanged: (server: string, tools: readonly IListedMcpTool[]) => this.#toolsChanged(server, tools),
    };
    for (const [server, settings] of Object.entries(args.servers)) {
      const connection = new McpServerConnection({
        server,
        settings,
        events,
        logger: args.logger,
        ...(args.backoff ? { backoff: args.backoff } : {}),
      });
      this.#connections.set(server, connection);
      metrics?.mcpServerUp(server, false);
    }
  }

  get size(): number {
    return this.#connections.size;
  }

  /** Connects to every server; resolves once each first attempt succeeded or failed. Never rejects. */
  async start(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((connection) => connection.start()));
  }

  /** The tools of every server that is up, named for the model: what a starting run pins. */
  snapshot(): TMcpToolList {
    const tools = [...this.#entries.entries()]
      .filter(([server]) => this.#connections.get(server)?.status === "up")
      .flatMap(([, entries]) => entries);
    return { schemaVersion: 1, tools };
  }

  /**
   * Whether a pinned tool can still be called: its server lists it, or its server is down right now (the
   * call then fails as a transport failure, not as an unknown tool).
   */
  /** Each server that is up, with its tools named for the model: what the worker renews in the directory. */
  upServers(): Array<{ server: string; tools: readonly TMcpToolEntry[] }> {
    return [...this.#entries.entries()]
      .filter(([server]) => this.#connections.get(server)?.status === "up")
      .map(([server, tools]) => ({ server, tools }));
  }

  stillListed(entry: TMcpToolEntry): boolean {
    const connection = this.#connections.get(entry.server);
    if (connection === undefined) return false;
    if (connection.status !== "up") return true;
    return connection.tools.some((tool) => tool.name === entry.mcpName);
  }

  states(): IMcpServerState[] {
    return [...this.#connections.values()].map((connection) => ({
      server: connection.server,
      status: connection.status,
      tools: connection.tools.length,
      ...(connection.status !== "up" && connection.lastErrorMessage !== undefined
        ? { error: connection.lastErrorMessage }
        : {}),
    }));
  }

  /** Calls a tool on its server and turns the result into what the model reads (see outputOfMcpResult). */
  readonly call: TMcpToolCall = async ({ server, mcpName, input, abortSignal }) => {
    const connection = this.#connections.get(server);
    if (connection === undefined) throw new McpServerUnavailableError(server);
    const result = await connection.callTool(mcpName, input, abortSignal);
    return outputOfMcpResult(server, mcpName, result);
  };

  async close(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((connection) => connection.close()));
  }

  #toolsChanged(server: string, listed: readonly IListedMcpTool[]): void {
    const tools = listed.filter((tool) => this.#checkable(server, tool));
    const names = mcpToolNamesOf(
      server,
      tools.map((tool) => tool.name),
    );
    const renamed = names.filter((name) => name.renamed);
    if (renamed.length > 0) {
      this.#logger.warn(
        { mcpServer: server, renamed: renamed.map(({ mcpName, name }) => ({ mcpName, name })) },
        "MCP tool names the model cannot take were renamed",
      );
    }
    const entries = tools.map((tool, index) => ({
      name: names[index]?.name ?? tool.name,
      server,
      mcpName: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      ...(tool.readOnly !== undefined ? { readOnly: tool.readOnly } : {}),
      ...(tool.idempotent !== undefined ? { idempotent: tool.idempotent } : {}),
    }));
    this.#entries.set(server, entries);
    this.#onToolsRead?.(server, entries);
    this.#logger.info({ mcpServer: server, tools: tools.length }, "MCP tool list read");
  }

  /**
   * Whether Tollgate can check the tool's schemas; if not, the tool is not mounted (the model is never
   * offered it, a call of it settles as unknown) and the operator is told which schema, where and why.
   */
  #checkable(server: string, tool: IListedMcpTool): boolean {
    const problem = mcpToolSchemaProblem(tool);
    if (problem === undefined) return true;
    this.#logger.error(
      { mcpServer: server, mcpTool: tool.name, ...problem },
      "an MCP tool whose schema Tollgate cannot check is not mounted",
    );
    return false;
  }
}
