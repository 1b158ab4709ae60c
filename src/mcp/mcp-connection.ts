import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import { isHttpMcpServer, type TMcpServerSettings } from "../gateway/index.js";
import { type IMcpSdk, loadMcpSdk } from "./mcp-sdk.js";
import { mcpOutputValidator } from "./mcp-tool-schemas.js";

/** A tool as the server lists it: what a run pins (its output schema is checked, never shown). */
export interface IListedMcpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  /** Its `annotations.readOnlyHint`, when the server gives one. */
  readOnly?: boolean;
  /** Its `annotations.idempotentHint`, when the server gives one. */
  idempotent?: boolean;
}

export type TMcpConnectionStatus = "connecting" | "up" | "down";

/** What a connection tells its pool. */
export interface IMcpConnectionEvents {
  /** A connection attempt failed (at start-up or reconnecting): counted by the metrics. */
  connectFailed(server: string, error: unknown): void;
  statusChanged(server: string, status: TMcpConnectionStatus): void;
  toolsChanged(server: string, tools: readonly IListedMcpTool[]): void;
}

export interface IMcpBackoff {
  /** The first wait before reconnecting. @defaultValue 200 */
  initialMs: number;
  /** The longest wait. @defaultValue 10000 */
  maxMs: number;
}

/** Long enough never to fire first: the tool's own timeout (the registry's) stops a call. */
const requestTimeoutMs = 2_147_483_647;

/** Thrown to a call made while the server cannot be reached: a transport failure, the model's generic 500. */
export class McpServerUnavailableError extends Error {
  readonly server: string;
  constructor(server: string, cause?: unknown) {
    super(`The MCP server "${server}" cannot be reached.`, { cause });
    this.name = "McpServerUnavailableError";
    this.server = server;
  }
}

/**
 * One worker's connection to one MCP server. It connects (streamable HTTP or a stdio child), lists the
 * tools (every page) and lists them again on `notifications/tools/list_changed`. A server that answers
 * 404 to the session has forgotten it: the connection initializes a new session and sends the call
 * again (the spec's rule: the call never reached a session). A connection that drops or cannot be made is
 * tried again with exponential backoff; calls meanwhile fail at once.
 */
export class McpServerConnection {
  readonly server: string;
  #status: TMcpConnectionStatus = "connecting";
  #tools: readonly IListedMcpTool[] = [];
  #client: Client | undefined;
  #lastError: unknown;
  #closed = false;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #failedAttempts = 0;
  #connecting: Promise<boolean> | undefined;
  /** Set by the first connection attempt (the SDK is imported then); a client exists only after it. */
  #sdk: IMcpSdk | undefined;
  readonly #settings: TMcpServerSettings;
  readonly #events: IMcpConnectionEvents;
  readonly #logger: Logger;
  readonly #backoff: IMcpBackoff;

  constructor(args: {
    server: string;
    settings: TMcpServerSettings;
    events: IMcpConnectionEvents;
    logger: Logger;
    backoff?: Partial<IMcpBackoff>;
  }) {
    this.server = args.server;
    this.#settings = args.settings;
    this.#events = args.events;
    this.#logger = args.logger.child({ mcpServer: args.server });
    this.#backoff = { initialMs: 200, maxMs: 10_000, ...args.backoff };
  }

  get status(): TMcpConnectionStatus {
    return this.#status;
  }

  get tools(): readonly IListedMcpTool[] {
    return this.#tools;
  }

  get lastErrorMessage(): string | undefined {
    return this.#lastError === undefined
      ? undefined
      : this.#lastError instanceof Error
        ? this.#lastError.message
        : String(this.#lastError);
  }

  /** The first attempt: resolves when it is up or failed (then reconnecting goes on in the background). */
  start(): Promise<boolean> {
    return this.#connect();
  }

  /** Calls a tool. Throws McpServerUnavailableError when the server cannot be reached. */
  async callTool(name: string, input: unknown, abortSignal: AbortSignal): Promise<CallToolResult> {
    const client = this.#client;
    if (this.#status !== "up" || client === undefined) throw new McpServerUnavailableError(this.server);
    try {
      return await this.#call(client, name, input, abortSignal);
    } catch (error) {
      if (!this.#isSessionGone(error) || abortSignal.aborted)
        throw this.#asTransportFailure(error, abortSignal);
      this.#logger.info("the server answered 404 to the session: initializing a new one");
      await this.#dropClient();
      if (!(await this.#connect())) throw new McpServerUnavailableError(this.server, error);
      const renewed = this.#client;
      if (renewed === undefined) throw new McpServerUnavailableError(this.server, error);
      return this.#call(renewed, name, input, abortSignal);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#reconnectTimer);
    await this.#dropClient();
  }

  async #call(
    client: Client,
    name: string,
    input: unknown,
    abortSignal: AbortSignal,
  ): Promise<CallToolResult> {
    const args = (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown>;
    const result = await client.callTool({ name, arguments: args }, undefined, {
      signal: abortSignal,
      timeout: requestTimeoutMs,
    });
    return result as CallToolResult;
  }

  /** A protocol error (McpError) is the server's answer; anything else is the connection failing. */
  #asTransportFailure(error: unknown, abortSignal: AbortSignal): unknown {
    if (abortSignal.aborted) return error;
    if ((this.#sdk && error instanceof this.#sdk.StreamableHTTPError) || isConnectionClosed(error)) {
      return new McpServerUnavailableError(this.server, error);
    }
    return error;
  }

  #connect(): Promise<boolean> {
    if (this.#connecting) return this.#connecting;
    this.#connecting = this.#connectOnce().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #connectOnce(): Promise<boolean> {
    if (this.#closed) return false;
    this.#setStatus("connecting");
    this.#sdk ??= await loadMcpSdk();
    const sdk = this.#sdk;
    if (this.#closed) return false;
    const client = new sdk.Client(
      { name: "tollgate", version: "1" },
      { capabilities: {}, jsonSchemaValidator: mcpOutputValidator },
    );
    const transport = this.#transport(sdk);
    try {
      await client.connect(transport);
      client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
        this.#refreshTools(client).catch((error: unknown) =>
          this.#logger.warn({ err: error }, "the tool list could not be listed again"),
        );
      });
      const tools = await listAllTools(client);
      if (this.#closed) {
        await client.close().catch(() => undefined);
        return false;
      }
      this.#client = client;
      // Set after connecting: a failed attempt's transport closing must not schedule a second reconnect.
      // The client's hook, not the transport's: the client rejects the calls in flight on close first.
      client.onclose = () => this.#connectionLost(client);
      this.#failedAttempts = 0;
      this.#lastError = undefined;
      this.#setTools(tools);
      this.#setStatus("up");
      return true;
    } catch (error) {
      await client.close().catch(() => undefined);
      this.#lastError = error;
      this.#failedAttempts += 1;
      this.#events.connectFailed(this.server, error);
      this.#setStatus("down");
      this.#logger.warn({ err: error, attempt: this.#failedAttempts }, "MCP server not reachable");
      this.#scheduleReconnect();
      return false;
    }
  }

  #transport(sdk: IMcpSdk): Transport {
    const settings = this.#settings;
    if (isHttpMcpServer(settings)) {
      return new sdk.StreamableHTTPClientTransport(new URL(settings.url), {
        ...(settings.headers ? { requestInit: { headers: settings.headers } } : {}),
        // Reconnecting is ours (one policy for both transports); the SDK's SSE resumption stays off.
        reconnectionOptions: {
          maxReconnectionDelay: 0,
          initialReconnectionDelay: 0,
          reconnectionDelayGrowFactor: 1,
          maxRetries: 0,
        },
      });
    }
    return new sdk.StdioClientTransport({
      command: settings.command,
      args: settings.args,
      env: { ...sdk.getDefaultEnvironment(), ...(settings.env ?? {}) },
      ...(settings.cwd !== undefined ? { cwd: settings.cwd } : {}),
      // The server's stderr is its log, not the worker's output.
      stderr: "ignore",
    });
  }

  #connectionLost(client: Client): void {
    if (this.#closed || this.#client !== client) return;
    this.#client = undefined;
    this.#logger.warn("the connection to the MCP server dropped; reconnecting");
    this.#setStatus("down");
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#reconnectTimer !== undefined) return;
    const exponent = Math.max(0, this.#failedAttempts - 1);
    const delayMs = Math.min(this.#backoff.maxMs, this.#backoff.initialMs * 2 ** exponent);
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      void this.#connect();
    }, delayMs);
    this.#reconnectTimer.unref();
  }

  async #refreshTools(client: Client): Promise<void> {
    const tools = await listAllTools(client);
    if (this.#client === client) this.#setTools(tools);
  }

  async #dropClient(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    if (client) await client.close().catch(() => undefined);
  }

  /** The server answered 404 to a request carrying a session id: the session is gone. */
  #isSessionGone(error: unknown): boolean {
    return this.#sdk !== undefined && error instanceof this.#sdk.StreamableHTTPError && error.code === 404;
  }

  #setTools(tools: readonly IListedMcpTool[]): void {
    this.#tools = tools;
    this.#events.toolsChanged(this.server, tools);
  }

  #setStatus(status: TMcpConnectionStatus): void {
    if (this.#status === status) return;
    this.#status = status;
    this.#events.statusChanged(this.server, status);
  }
}

/** Every page of the server's tools. */
async function listAllTools(client: Client): Promise<IListedMcpTool[]> {
  const tools: IListedMcpTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor !== undefined ? { cursor } : {}, { timeout: 30_000 });
    for (const tool of page.tools) {
      const { readOnlyHint, idempotentHint } = tool.annotations ?? {};
      tools.push({
        name: tool.name,
        description: tool.description ?? "",
        inputSchema: tool.inputSchema as Record<string, unknown>,
        ...(tool.outputSchema !== undefined
          ? { outputSchema: tool.outputSchema as Record<string, unknown> }
          : {}),
        // Hints, as MCP calls them: only a boolean is taken (a server's other values say nothing).
        ...(typeof readOnlyHint === "boolean" ? { readOnly: readOnlyHint } : {}),
        ...(typeof idempotentHint === "boolean" ? { idempotent: idempotentHint } : {}),
      });
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

/** The SDK's error for a request whose connection closed before its answer (McpError ConnectionClosed). */
function isConnectionClosed(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === -32000;
}
