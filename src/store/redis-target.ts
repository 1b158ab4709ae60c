/**
 * Where Tollgate's Redis is: one node (a URL), a Redis Cluster (seed nodes), or a primary that Sentinel
 * names. Every connection of a process (commands, queues, subscribers, blocking readers) is created from
 * the same target, so a duplicated connection never falls back to a single node on a cluster.
 */
export type TRedisTarget =
  | { readonly kind: "single"; readonly url: string }
  | ({ readonly kind: "cluster"; readonly nodes: readonly IHostPort[] } & IRedisCredentials)
  | ({
      readonly kind: "sentinel";
      readonly sentinels: readonly IHostPort[];
      readonly name: string;
      readonly sentinelPassword?: string;
    } & IRedisCredentials);

export interface IHostPort {
  readonly host: string;
  readonly port: number;
}

export interface IRedisCredentials {
  readonly username?: string;
  readonly password?: string;
  readonly tls: boolean;
}

export interface IRedisTargetOptions {
  readonly redisUrl: string;
  readonly redisClusterNodes?: readonly string[] | undefined;
  readonly redisSentinels?: readonly string[] | undefined;
  readonly redisSentinelName?: string | undefined;
  readonly redisUsername?: string | undefined;
  readonly redisPassword?: string | undefined;
  readonly redisSentinelPassword?: string | undefined;
  readonly redisTls: boolean;
}

/** The target the (already validated) runtime options name. */
export function redisTargetFrom(options: IRedisTargetOptions): TRedisTarget {
  const credentials: IRedisCredentials = {
    tls: options.redisTls,
    ...(options.redisUsername !== undefined ? { username: options.redisUsername } : {}),
    ...(options.redisPassword !== undefined ? { password: options.redisPassword } : {}),
  };
  if (options.redisClusterNodes) {
    return { kind: "cluster", nodes: options.redisClusterNodes.map(parseHostPort), ...credentials };
  }
  if (options.redisSentinels && options.redisSentinelName) {
    return {
      kind: "sentinel",
      sentinels: options.redisSentinels.map(parseHostPort),
      name: options.redisSentinelName,
      ...(options.redisSentinelPassword !== undefined
        ? { sentinelPassword: options.redisSentinelPassword }
        : {}),
      ...credentials,
    };
  }
  return { kind: "single", url: options.redisUrl };
}

/** `host:port` or `[ipv6]:port`. */
export function parseHostPort(text: string): IHostPort {
  const colon = text.lastIndexOf(":");
  const host = text.slice(0, colon).replace(/^\[(.*)\]$/, "$1");
  return { host, port: Number(text.slice(colon + 1)) };
}

/** For logs: where, never the password. */
export function describeRedisTarget(target: TRedisTarget): string {
  const list = (nodes: readonly IHostPort[]) => nodes.map((node) => `${node.host}:${node.port}`).join(",");
  if (target.kind === "cluster") return `cluster ${list(target.nodes)}`;
  if (target.kind === "sentinel") return `sentinel ${target.name}@${list(target.sentinels)}`;
  try {
    const parsed = new URL(target.url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    return "(unparseable REDIS_URL)";
  }
}

/**
 * Whether a prefix puts every key in one hash slot: Redis hashes only the part between the first `{`
 * and the next `}`, when that part is not empty. BullMQ's Lua scripts and Tollgate's touch several keys
 * of a queue at once, which a cluster refuses (CROSSSLOT) unless they share a slot.
 */
export function prefixHasHashTag(prefix: string): boolean {
  const open = prefix.indexOf("{");
  if (open < 0) return false;
  const close = prefix.indexOf("}", open + 1);
  return close > open + 1;
}
