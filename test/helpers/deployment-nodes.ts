import { Cluster, type Redis } from "ioredis";

/**
 * The nodes that serve a deployment: the one node, or each master of a cluster (a key, or a connection
 * the runtime opens, lands on the node of its slot; a cluster client sends KEYS or CLIENT LIST to one
 * node only).
 */
function nodesOf(redis: Redis | Cluster): Redis[] {
  return redis instanceof Cluster ? redis.nodes("master") : [redis];
}

/** CLIENT LIST of every node that serves the deployment, one line per connection. */
export async function clientListLines(redis: Redis | Cluster): Promise<string[]> {
  const lists = await Promise.all(nodesOf(redis).map(async (node) => String(await node.client("LIST"))));
  return lists.flatMap((list) => list.split("\n").filter((line) => line !== ""));
}

/** The keys matching `pattern` on every node that serves the deployment. */
export async function keysOnEveryNode(redis: Redis | Cluster, pattern: string): Promise<string[]> {
  const perNode = await Promise.all(nodesOf(redis).map((node) => node.keys(pattern)));
  return perNode.flat();
}
