import { createHash } from "node:crypto";
import { canonicalJson, mcpToolListSchema, type TMcpToolList } from "../contracts/index.js";
import type { IKeys } from "./keys.js";
import type { ITollgateRedis } from "./redis-client.js";

/**
 * How long a pinned tool list is kept after a run last pinned or read it: longer than a run waits for an
 * approval, so a run parked for days still finds the schemas its model saw.
 */
export const pinnedToolListTtlSeconds = 30 * 24 * 60 * 60;

/** Lists read by this process, by hash: a hash names one content forever, so they never go stale. */
const maxListsKept = 64;

/**
 * The MCP tool lists runs pinned (design: a run sees the tools it started with). One key per distinct list,
 * shared by every run that started with it: most runs of a deployment pin the same few lists.
 */
export class ToolListStore {
  readonly #known = new Map<string, TMcpToolList>();

  constructor(
    private readonly redis: ITollgateRedis,
    private readonly keys: IKeys,
  ) {}

  /** Stores the list (or renews its lifetime) and returns its hash. */
  async pin(list: TMcpToolList): Promise<string> {
    const json = canonicalJson(list);
    const hash = createHash("sha256").update(json).digest("hex");
    await this.redis.set(this.keys.toolList(hash), json, "EX", pinnedToolListTtlSeconds);
    this.#remember(hash, list);
    return hash;
  }

  /** The list pinned under `hash`, or undefined when it is gone (its tools then settle as unknown). */
  async get(hash: string): Promise<TMcpToolList | undefined> {
    const known = this.#known.get(hash);
    if (known) return known;
    const json = await this.redis.getex(this.keys.toolList(hash), "EX", pinnedToolListTtlSeconds);
    if (json === null) return undefined;
    const list = mcpToolListSchema.parse(JSON.parse(json));
    this.#remember(hash, list);
    return list;
  }

  #remember(hash: string, list: TMcpToolList): void {
    this.#known.set(hash, list);
    if (this.#known.size > maxListsKept) this.#known.delete(this.#known.keys().next().value as string);
  }
}
