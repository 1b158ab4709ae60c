import { Cluster, type Redis } from "ioredis";
import { parseHostPort } from "../../src/store/index.js";
import { redisVersion, usedMemory } from "./redis-stats.js";

/** What one master holds, read with its own commands (not through slot routing). */
export interface IMasterFigures {
  /** host:port */
  master: string;
  /** Its slot ranges, `0-5460`. */
  slots: string;
  /** DBSIZE: every key it holds. */
  keys: number;
  /** Keys under each prefix asked about (SCAN MATCH `<prefix>:*`). */
  keysByPrefix: Record<string, number>;
  /** INFO memory used_memory. */
  usedMemoryBytes: number;
}

/**
 * An admin connection to a local cluster: flushes the masters and reads what each holds. Connected once
 * (and awaited: the crash this bench had was a connection closed under commands still pending) and quit
 * by its owner before the cluster stops.
 */
export class ClusterAdmin {
  private constructor(private readonly cluster: Cluster) {}

  static async connect(nodes: readonly string[]): Promise<ClusterAdmin> {
    const cluster = new Cluster(nodes.map(parseHostPort), {
      lazyConnect: true,
      redisOptions: { maxRetriesPerRequest: 1 },
    });
    // Said, not swallowed: a command that fails because of it still fails the bench.
    cluster.on("error", (error: Error) => console.error(`cluster admin connection: ${error.message}`));
    await cluster.connect();
    return new ClusterAdmin(cluster);
  }

  private masters(): Redis[] {
    return this.cluster.nodes("master");
  }

  /** FLUSHALL on every master (their replicas follow). */
  async flush(): Promise<void> {
    await Promise.all(this.masters().map((master) => master.flushall()));
  }

  async redisVersion(): Promise<string> {
    return redisVersion(this.masters()[0]!);
  }

  /** Every master's keys (in all, and under each prefix), memory and slots, in port order. */
  async figures(prefixes: readonly string[]): Promise<IMasterFigures[]> {
    const slots = await this.slotRanges();
    const figures = await Promise.all(
      this.masters().map(async (master): Promise<IMasterFigures> => {
        const address = `${master.options.host}:${master.options.port}`;
        const keysByPrefix: Record<string, number> = {};
        for (const prefix of prefixes) keysByPrefix[prefix] = await countKeys(master, `${prefix}:*`);
        return {
          master: address,
          slots: slots.get(address)?.join(", ") ?? "",
          keys: await master.dbsize(),
          keysByPrefix,
          usedMemoryBytes: await usedMemory(master),
        };
      }),
    );
    return figures.sort((left, right) => left.master.localeCompare(right.master));
  }

  async close(): Promise<void> {
    await this.cluster.quit();
  }

  private async slotRanges(): Promise<Map<string, string[]>> {
    const byMaster = new Map<string, string[]>();
    // Each range: first slot, last slot, then its master (host, port, id) and replicas.
    for (const [first, last, owner] of await this.cluster.cluster("SLOTS")) {
      const address = `${owner?.[0]}:${owner?.[1]}`;
      byMaster.set(address, [...(byMaster.get(address) ?? []), `${first}-${last}`]);
    }
    return byMaster;
  }
}

async function countKeys(node: Redis, pattern: string): Promise<number> {
  let cursor = "0";
  let count = 0;
  do {
    const [next, keys] = await node.scan(cursor, "MATCH", pattern, "COUNT", 1_000);
    cursor = next;
    count += keys.length;
  } while (cursor !== "0");
  return count;
}
