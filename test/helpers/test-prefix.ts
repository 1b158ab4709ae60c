import { randomUUID } from "node:crypto";
import { Cluster, Redis } from "ioredis";
import { layoutPartitions, parseHostPort } from "../../src/store/index.js";
import { testClusterNodes, testPartitions, testRedisUrl } from "./redis-url.js";

/** A prefix no other test uses; a hash tag on a cluster, so that one test's keys share a slot. */
export function uniquePrefix(label: string): string {
  const prefix = `tgtest-${label}-${randomUUID().slice(0, 8)}`;
  return testClusterNodes ? `{${prefix}}` : prefix;
}

/**
 * Deletes every key under the prefix (queues and Tollgate's own keys), on every master of a cluster, and
 * under the prefixes of its partitions (`partitions`, default the test deployments').
 */
export async function deletePrefix(prefix: string, partitions = testPartitions): Promise<void> {
  const prefixes = new Set([
    prefix,
    ...layoutPartitions(prefix, partitions).map((partition) => partition.prefix),
  ]);
  await Promise.all([...prefixes].map(deleteOnePrefix));
}

async function deleteOnePrefix(prefix: string): Promise<void> {
  if (testClusterNodes) {
    const cluster = new Cluster(testClusterNodes.map(parseHostPort), {
      redisOptions: { maxRetriesPerRequest: 1 },
    });
    try {
      await new Promise<void>((resolve, reject) => {
        cluster.once("ready", resolve);
        cluster.once("error", reject);
      });
      await Promise.all(cluster.nodes("master").map((node) => deleteOnNode(node, prefix)));
    } finally {
      cluster.disconnect();
    }
    return;
  }
  const redis = new Redis(testRedisUrl, { maxRetriesPerRequest: 1 });
  try {
    await deleteOnNode(redis, prefix);
  } finally {
    redis.disconnect();
  }
}

async function deleteOnNode(redis: Redis, prefix: string): Promise<void> {
  // SCAN's MATCH treats `{` literally but `[`, `*`, `?` and `\` as patterns: prefixes use none of them.
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
    cursor = next;
    // One slot per prefix on a cluster, so one UNLINK of many keys is allowed.
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== "0");
}
