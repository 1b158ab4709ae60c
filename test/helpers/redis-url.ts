/** The Redis the integration tests use; each test gets its own prefix on it. */
export const testRedisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/**
 * Seed nodes of a Redis Cluster (`host:port,...`), set by `npm run test:cluster`: the harness then
 * connects with the Cluster client and every test prefix gets a hash tag.
 */
export const testClusterNodes: string[] | undefined = process.env.TOLLGATE_TEST_CLUSTER_NODES
  ? process.env.TOLLGATE_TEST_CLUSTER_NODES.split(",").filter((node) => node !== "")
  : undefined;

/**
 * Partitions of the test deployments (`TOLLGATE_TEST_PARTITIONS`, set by `npm run test:cluster` for its
 * second pass): the harness's runs then spread over that many partitions. Unset: 1, the unpartitioned layout.
 */
export const testPartitions: number = Number(process.env.TOLLGATE_TEST_PARTITIONS ?? "1");

/** The runtime's Redis options for tests: the cluster when one is given, else the single node. */
export const testRedisOptions: { redisUrl: string; redisClusterNodes?: string[]; partitions?: number } = {
  redisUrl: testRedisUrl,
  ...(testClusterNodes ? { redisClusterNodes: testClusterNodes } : {}),
  ...(testPartitions > 1 ? { partitions: testPartitions } : {}),
};
