import { Cluster, type Redis } from "ioredis";

/**
 * CLIENT LIST of every node that serves the deployment: the one node, or each master of a cluster (a
 * connection the runtime opens lands on the node of its keys' slot).
 */
export async function clientListLines(redis: Redis | Cluster): Promise<string[]> {
  const nodes = redis instanceof Cluster ? redis.nodes("master") : [redis];
  const lists = await Promise.all(nodes.map(async (node) => String(await node.client("LIST"))));
  return lists.flatMap((list) => list.split("\n").filter((line) => line !== ""));
}
