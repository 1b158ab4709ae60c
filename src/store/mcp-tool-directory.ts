import { createHash } from "node:crypto";
import {
  canonicalJson,
  mcpPublishedToolsSchema,
  type TMcpPublishedTools,
  type TMcpToolEntry,
} from "../contracts/index.js";
import type { IKeys } from "./keys.js";
import type { ITollgateRedis } from "./redis-client.js";

/**
 * The MCP tools the workers mounted, per server, as they published them: how a process that holds no MCP
 * connection (the API) learns the tools' names, schemas and tags. One key per server with a TTL the workers
 * renew while the server answers them; the last worker to publish wins (the workers of one deployment list
 * the same server, and a changed list reaches each of them by `notifications/tools/list_changed`).
 */
export class McpToolDirectory {
  constructor(
    private readonly redis: ITollgateRedis,
    private readonly keys: IKeys,
    private readonly now: () => number,
  ) {}

  /** Publishes a server's tools for `ttlMs`. */
  async publish(server: string, tools: readonly TMcpToolEntry[], ttlMs: number): Promise<void> {
    const published: TMcpPublishedTools = {
      schemaVersion: 1,
      server,
      toolListHash: mcpToolListHashOf(tools),
      publishedAt: this.now(),
      tools: [...tools],
    };
    await this.redis.set(this.keys.mcpPublishedTools(server), JSON.stringify(published), "PX", ttlMs);
  }

  /** What is published for each of these servers; a server no worker published now is absent. */
  async read(servers: readonly string[]): Promise<Map<string, TMcpPublishedTools>> {
    const found = new Map<string, TMcpPublishedTools>();
    const values = await Promise.all(
      servers.map((server) => this.redis.get(this.keys.mcpPublishedTools(server))),
    );
    servers.forEach((server, index) => {
      const json = values[index];
      if (json === null || json === undefined) return;
      const parsed = mcpPublishedToolsSchema.safeParse(JSON.parse(json));
      // A record this version cannot read is treated as not published: the next renewal replaces it.
      if (parsed.success) found.set(server, parsed.data);
    });
    return found;
  }
}

/** The hash of one server's list, as a pinned list's (the canonical JSON of `{ schemaVersion, tools }`). */
export function mcpToolListHashOf(tools: readonly TMcpToolEntry[]): string {
  return createHash("sha256")
    .update(canonicalJson({ schemaVersion: 1, tools }))
    .digest("hex");
}
