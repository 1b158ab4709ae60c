import type { Redis } from "ioredis";
import { TollgateError } from "../errors/index.js";
import { dataNodes } from "../store/index.js";
import type { ITollgateRuntime } from "./runtime.js";

/** What a start-up check logs through; Tollgate's pino logger fits. */
export interface IServerCheckLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** What one data node says about itself; a field is undefined when the node would not say. */
export interface IRedisNodeSettings {
  readonly node: string;
  readonly clusterEnabled: boolean;
  readonly version: string | undefined;
  readonly maxmemoryPolicy: string | undefined;
  readonly maxmemoryBytes: number | undefined;
  readonly appendonly: boolean | undefined;
  readonly rdbSave: string | undefined;
}

export interface IRedisServerCheckOptions {
  logger: IServerCheckLogger;
  /** Refuse an evicting Redis. @defaultValue the runtime's requireNoEviction, else NODE_ENV === "production" */
  requireNoEviction?: boolean;
}

/**
 * Reads what matters about the Redis Tollgate was given, once at start, on every data node:
 * - a single-node client on a cluster node would drown in MOVED errors: refused, naming the setting;
 * - an evicting `maxmemory-policy` drops parked runs and approvals silently: a warning, or a refusal
 *   when `requireNoEviction`;
 * - no persistence: a note (a restart loses everything in flight).
 * CONFIG GET is often disabled on managed Redis (or denied by an ACL): INFO answers instead.
 */
export async function checkRedisServer(
  runtime: ITollgateRuntime,
  options: IRedisServerCheckOptions,
): Promise<IRedisNodeSettings[]> {
  await whenConnected(runtime);
  const settings = await Promise.all(dataNodes(runtime.redis).map(readNodeSettings));
  const isCluster = runtime.redisTarget.kind === "cluster";
  const clusterNode = settings.find((node) => node.clusterEnabled);
  if (!isCluster && clusterNode) {
    throw new TollgateError(
      "TG_INVALID_CONFIG",
      `Redis at ${clusterNode.node} runs in cluster mode (INFO cluster: cluster_enabled:1), but Tollgate ` +
        "was given a single node. Set TOLLGATE_REDIS_CLUSTER_NODES=host:port,... (runtime option " +
        "redisClusterNodes) and a prefix with a hash tag, such as TOLLGATE_PREFIX={tollgate}.",
      { node: clusterNode.node },
    );
  }
  const requireNoEviction =
    options.requireNoEviction ?? runtime.options.requireNoEviction ?? process.env.NODE_ENV === "production";
  const evicting = settings.filter(
    (node) => node.maxmemoryPolicy !== undefined && node.maxmemoryPolicy !== "noeviction",
  );
  if (evicting.length > 0) {
    const nodes = evicting.map((node) => `${node.node} (${node.maxmemoryPolicy})`).join(", ");
    const message =
      `Redis may evict keys: maxmemory-policy is not noeviction on ${nodes}. When memory fills, ` +
      "parked runs and approvals are deleted silently; set maxmemory-policy noeviction.";
    if (requireNoEviction) {
      throw new TollgateError(
        "TG_INVALID_CONFIG",
        `${message} (TOLLGATE_REQUIRE_NOEVICTION is on, so Tollgate refuses to start.)`,
        { nodes: evicting.map((node) => node.node) },
      );
    }
    options.logger.warn({ redisNodes: evicting }, message);
  }
  const unknownPolicy = settings.filter((node) => node.maxmemoryPolicy === undefined);
  if (unknownPolicy.length > 0) {
    options.logger.warn(
      { redisNodes: unknownPolicy.map((node) => node.node) },
      "could not read maxmemory-policy (CONFIG and INFO refused): make sure it is noeviction",
    );
  }
  const volatile = settings.filter((node) => node.appendonly === false && node.rdbSave === "");
  if (volatile.length > 0) {
    options.logger.warn(
      { redisNodes: volatile.map((node) => node.node) },
      "Redis persists nothing (no AOF, no RDB saves): a Redis restart loses every run and approval",
    );
  }
  options.logger.info({ redisNodes: settings }, "redis settings");
  return settings;
}

async function readNodeSettings(node: Redis): Promise<IRedisNodeSettings> {
  const info = parseInfo(await node.info().catch(() => ""));
  const config = await readConfig(node);
  const maxmemory = config.maxmemory ?? info.maxmemory;
  const appendonly = config.appendonly ?? info.aof_enabled;
  return {
    node: `${node.options.host}:${node.options.port}`,
    clusterEnabled: info.cluster_enabled === "1",
    version: info.valkey_version ?? info.redis_version,
    maxmemoryPolicy: config["maxmemory-policy"] ?? info.maxmemory_policy,
    maxmemoryBytes: maxmemory === undefined ? undefined : Number(maxmemory),
    appendonly: appendonly === undefined ? undefined : appendonly === "yes" || appendonly === "1",
    rdbSave: config.save,
  };
}

/** CONFIG GET, or nothing when the command is disabled, renamed or denied. */
async function readConfig(node: Redis): Promise<Record<string, string>> {
  try {
    const pairs = (await node.call(
      "CONFIG",
      "GET",
      "maxmemory-policy",
      "maxmemory",
      "appendonly",
      "save",
    )) as string[];
    const config: Record<string, string> = {};
    for (let index = 0; index + 1 < pairs.length; index += 2) config[pairs[index]!] = pairs[index + 1]!;
    return config;
  } catch {
    return {};
  }
}

function parseInfo(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0 && !line.startsWith("#")) fields[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return fields;
}

/** A worker waits for Redis as long as it takes; the check runs once it answers. */
async function whenConnected(runtime: ITollgateRuntime): Promise<void> {
  const redis = runtime.redis;
  if (redis.status === "ready") return;
  // A cluster is ready once it has the slot map, so its masters are listed by then.
  await new Promise<void>((resolve) => redis.once("ready", () => resolve()));
}
