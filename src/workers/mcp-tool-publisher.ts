import type { Logger } from "pino";
import type { TMcpToolEntry } from "../contracts/index.js";
import type { McpToolDirectory } from "../store/index.js";

/**
 * How often a worker renews what it published of each server that is up, and how long a publication
 * lives: three renewals, so one slow renewal does not make a server look unmounted, and a server no
 * worker reaches any more drops out of `GET /v1/tools` within half a minute.
 */
export const mcpPublishIntervalMs = 10_000;
export const mcpPublishTtlMs = 3 * mcpPublishIntervalMs;

/**
 * Publishes a worker's MCP tool lists to the directory the API reads: each list when it is read (connect,
 * list_changed), and every server that is up again each interval. A failed write is logged, never
 * thrown: the next renewal writes it again, and the worker's own runs do not depend on it.
 */
export class McpToolPublisher {
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly directory: McpToolDirectory,
    private readonly logger: Logger,
  ) {}

  publish(server: string, tools: readonly TMcpToolEntry[]): void {
    this.directory
      .publish(server, tools, mcpPublishTtlMs)
      .catch((error: unknown) =>
        this.logger.warn({ err: error, mcpServer: server }, "could not publish the MCP tool list"),
      );
  }

  /** Renews the servers `upServers` returns every interval, until stopped. */
  renewEvery(upServers: () => Array<{ server: string; tools: readonly TMcpToolEntry[] }>): void {
    this.#timer = setInterval(() => {
      for (const { server, tools } of upServers()) this.publish(server, tools);
    }, mcpPublishIntervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
