import { parseEnv, type TEnvVariableName } from "./env.js";
import type { TRuntimeOptionsInput } from "./runtime-options.js";
import { runtimeOptionsFromEnv } from "./runtime-options-from-env.js";

/**
 * The runtime options that say where a deployment's queues are (which Redis, which keys, which
 * partitions), by the variable the CLI reads each from. A client and a worker that differ in any of them
 * never meet: the client's runs wait in queues no worker serves.
 */
const targetVariables = {
  redisUrl: "REDIS_URL",
  redisClusterNodes: "TOLLGATE_REDIS_CLUSTER_NODES",
  redisSentinels: "TOLLGATE_REDIS_SENTINELS",
  redisSentinelName: "TOLLGATE_REDIS_SENTINEL_NAME",
  redisUsername: "TOLLGATE_REDIS_USERNAME",
  redisPassword: "TOLLGATE_REDIS_PASSWORD",
  redisSentinelPassword: "TOLLGATE_REDIS_SENTINEL_PASSWORD",
  redisTls: "TOLLGATE_REDIS_TLS",
  prefix: "TOLLGATE_PREFIX",
  partitions: "TOLLGATE_PARTITIONS",
  previousPartitions: "TOLLGATE_PREVIOUS_PARTITIONS",
  servedPartitions: "TOLLGATE_SERVED_PARTITIONS",
} as const satisfies { [TKey in keyof TRuntimeOptionsInput]?: TEnvVariableName };

type TTargetOption = keyof typeof targetVariables;

/** The environment variables `runtimeWithTargetFromEnv` reads, for the docs and the tests. */
export const runtimeTargetVariables: readonly TEnvVariableName[] = Object.values(targetVariables);

/**
 * How to reach Redis: one node, a cluster, or Sentinel, with their credentials. Taken as a whole: options
 * that name a node, seeds or sentinels of their own read none of it from the environment (a REDIS_URL
 * given in code next to TOLLGATE_REDIS_CLUSTER_NODES exported in the shell would otherwise lose to it).
 */
const connectionOptions: readonly TTargetOption[] = [
  "redisUrl",
  "redisClusterNodes",
  "redisSentinels",
  "redisSentinelName",
  "redisUsername",
  "redisPassword",
  "redisSentinelPassword",
  "redisTls",
];
const connectionChoices: readonly TTargetOption[] = ["redisUrl", "redisClusterNodes", "redisSentinels"];

/**
 * `runtime` completed from the environment as the CLI reads it: each option of the Redis target it leaves
 * out (undefined counts as left out) is taken from its variable (REDIS_URL, TOLLGATE_PREFIX,
 * TOLLGATE_PARTITIONS, TOLLGATE_REDIS_CLUSTER_NODES, ...). What `runtime` gives always wins. So a
 * `GatewayClient` or `startWorker` beside `tollgate worker` processes finds the same queues without
 * repeating their settings in code. Only the target's variables are read; a bad value among them throws
 * TG_INVALID_CONFIG naming it.
 */
export function runtimeWithTargetFromEnv(
  runtime: TRuntimeOptionsInput | undefined,
  env: NodeJS.ProcessEnv,
): TRuntimeOptionsInput {
  const given = Object.fromEntries(
    Object.entries(runtime ?? {}).filter(([, value]) => value !== undefined),
  ) as TRuntimeOptionsInput;
  const targetEnv = Object.fromEntries(
    runtimeTargetVariables.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])),
  );
  const fromEnv: Record<string, unknown> = runtimeOptionsFromEnv(parseEnv(targetEnv));
  const connectionGiven = connectionChoices.some((option) => option in given);
  const inherited = Object.fromEntries(
    Object.entries(fromEnv).filter(
      ([option]) => !(connectionGiven && connectionOptions.includes(option as TTargetOption)),
    ),
  );
  return { ...inherited, ...given };
}
