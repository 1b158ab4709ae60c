import { Cluster, Redis, type RedisOptions } from "ioredis";
import { voteApprovalScript } from "./approval-vote-script.js";
import { defineLuaCommand } from "./lua-command.js";
import {
  approvalIndexPageScript,
  countUsageScript,
  createApprovalScript,
  decideApprovalKeyCount,
  decideApprovalScript,
  deleteThreadScript,
  finishRunScript,
  finishThreadRunScript,
  keepOutputApartScript,
  linkRunScript,
  pendingIndexCount,
  recordApprovalOutcomeScript,
  requestCancelScript,
  runIndexPageScript,
  saveRunScript,
  saveStartedRunScript,
} from "./lua-scripts.js";
import { remainingRedisBudgetMs } from "./redis-budget.js";
import type { TRedisTarget } from "./redis-target.js";
import { appendTextDeltaScript } from "./text-delta-script.js";

/**
 * ioredis with Tollgate's scripts defined on it. On a Redis Cluster the object is ioredis's `Cluster`,
 * typed as `Redis`: both expose the same commands, pipelines, pub/sub, `status`, `connect`, `quit` and
 * `disconnect`, which is all Tollgate uses (a Cluster has no `stream`: code reading it must allow for
 * that). One type keeps every store and BullMQ call site unchanged.
 */
export interface ITollgateRedis extends Redis {
  /** ARGV: the revision read, the state's JSON (a Buffer: see run-store.ts), the events' cap, the events. */
  tgSaveRun(runKey: string, eventsKey: string, ...args: Array<string | Buffer>): Promise<number>;
  /** KEYS and ARGV: see saveStartedRunScript. */
  tgSaveStartedRun(...keysAndArgs: Array<string | Buffer>): Promise<number>;
  tgAppendTextDelta(runKey: string, eventsKey: string, ...args: string[]): Promise<number>;
  /** The number of keys, then KEYS and ARGV: see finishRunScript. */
  tgFinishRun(numberOfKeys: string, ...keysAndArgs: Array<string | Buffer>): Promise<[number, string]>;
  tgKeepOutputApart(
    outputsKey: string,
    runKey: string,
    callId: string,
    outputJson: string,
    retentionMs: string,
  ): Promise<number>;
  tgDeleteThread(
    threadRunsKey: string,
    threadMessagesKey: string,
    threadIndexKey: string,
    legacyThreadRunIdsKey: string,
    force: string,
  ): Promise<[number, ...string[]]>;
  tgRequestCancel(
    cancelKey: string,
    eventsKey: string,
    runJobKey: string,
    ...args: string[]
  ): Promise<number>;
  /** KEYS and ARGV: see createApprovalScript. */
  tgCreateApproval(...keysAndArgs: string[]): Promise<number>;
  /** KEYS and ARGV: see decideApprovalScript. */
  tgDecideApproval(...keysAndArgs: string[]): Promise<[string, string?]>;
  tgApprovalIndexPage(indexKey: string, ...args: string[]): Promise<string[]>;
  tgLinkRun(runKey: string, field: "reruns" | "forks" | "resumes", entry: string): Promise<number>;
  /** The number of keys, then KEYS and ARGV: see runIndexPageScript. */
  tgRunIndexPage(numberOfKeys: string, ...keysAndArgs: string[]): Promise<Array<string | number>>;
  tgRecordApprovalOutcome(approvalKey: string, outcomeJson: string): Promise<number>;
  tgCountUsage(
    usageDayKey: string,
    fieldPrefix: string,
    promptTokens: string,
    completionTokens: string,
    retentionSeconds: string,
  ): Promise<number>;
  tgVoteApproval(
    approvalKey: string,
    approvalEventsKey: string,
    ...args: string[]
  ): Promise<[string, string?]>;
  tgFinishThreadRun(
    threadRunsKey: string,
    threadMessagesKey: string,
    ...args: string[]
  ): Promise<string | null>;
}

/**
 * `worker` connections block (BullMQ needs `maxRetriesPerRequest: null`); `client` connections serve
 * requests and fail fast while Redis is down instead of queueing commands without bound.
 */
export type TConnectionRole = "worker" | "client";

export function createRedis(
  target: TRedisTarget,
  role: TConnectionRole,
  extra: RedisOptions = {},
  onError: (error: Error) => void = () => undefined,
): ITollgateRedis {
  const roleOptions: RedisOptions =
    role === "worker"
      ? { maxRetriesPerRequest: null, ...extra }
      : { maxRetriesPerRequest: 1, enableOfflineQueue: false, ...extra };
  const redis = connect(target, roleOptions);
  if (role === "client" && typeof roleOptions.commandTimeout === "number") {
    boundCommandTime(redis, roleOptions.commandTimeout);
  }
  // ioredis reconnects by itself; without a listener it prints every failed attempt to the console.
  redis.on("error", onError);
  return defineScripts(redis);
}

function connect(target: TRedisTarget, roleOptions: RedisOptions): Redis {
  if (target.kind === "single") return new Redis(target.url, { lazyConnect: false, ...roleOptions });
  const credentials = {
    ...(target.username !== undefined ? { username: target.username } : {}),
    ...(target.password !== undefined ? { password: target.password } : {}),
    ...(target.tls ? { tls: {} } : {}),
  };
  if (target.kind === "sentinel") {
    return new Redis({
      sentinels: target.sentinels.map((node) => ({ host: node.host, port: node.port })),
      name: target.name,
      ...(target.sentinelPassword !== undefined ? { sentinelPassword: target.sentinelPassword } : {}),
      ...(target.tls ? { enableTLSForSentinelMode: true } : {}),
      ...credentials,
      ...roleOptions,
    });
  }
  const { enableOfflineQueue, ...nodeOptions } = roleOptions;
  const cluster = new Cluster(
    target.nodes.map((node) => ({ host: node.host, port: node.port })),
    {
      // The Cluster client takes the offline queue at its top level, the rest per node.
      enableOfflineQueue: enableOfflineQueue ?? true,
      redisOptions: { ...credentials, ...nodeOptions },
      // A failover or a slot migration answers MOVED/ASK/CLUSTERDOWN/TRYAGAIN for a moment: retry
      // within the client after refreshing the slot map, instead of failing the command.
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 300,
      retryDelayOnTryAgain: 200,
      retryDelayOnMoved: 50,
      maxRedirections: 32,
      slotsRefreshTimeout: 2_000,
      clusterRetryStrategy: (attempts) => Math.min(100 * attempts, 2_000),
    },
  );
  return cluster as unknown as Redis;
}

export function defineScripts(redis: Redis): ITollgateRedis {
  const withScripts = redis as ITollgateRedis;
  if (typeof withScripts.tgSaveRun === "function") return withScripts;
  defineLuaCommand(redis, "tgSaveRun", { numberOfKeys: 2, lua: saveRunScript });
  defineLuaCommand(redis, "tgSaveStartedRun", { numberOfKeys: 4, lua: saveStartedRunScript });
  defineLuaCommand(redis, "tgAppendTextDelta", { numberOfKeys: 2, lua: appendTextDeltaScript });
  defineLuaCommand(redis, "tgFinishRun", { numberOfKeys: "dynamic", lua: finishRunScript });
  defineLuaCommand(redis, "tgKeepOutputApart", { numberOfKeys: 2, lua: keepOutputApartScript });
  defineLuaCommand(redis, "tgRequestCancel", { numberOfKeys: 3, lua: requestCancelScript });
  defineLuaCommand(redis, "tgCreateApproval", {
    numberOfKeys: 3 + pendingIndexCount,
    lua: createApprovalScript,
  });
  defineLuaCommand(redis, "tgDecideApproval", {
    numberOfKeys: decideApprovalKeyCount,
    lua: decideApprovalScript,
  });
  defineLuaCommand(redis, "tgApprovalIndexPage", { numberOfKeys: 1, lua: approvalIndexPageScript });
  defineLuaCommand(redis, "tgLinkRun", { numberOfKeys: 1, lua: linkRunScript });
  defineLuaCommand(redis, "tgRunIndexPage", { numberOfKeys: "dynamic", lua: runIndexPageScript });
  defineLuaCommand(redis, "tgRecordApprovalOutcome", { numberOfKeys: 1, lua: recordApprovalOutcomeScript });
  defineLuaCommand(redis, "tgVoteApproval", { numberOfKeys: 2, lua: voteApprovalScript });
  defineLuaCommand(redis, "tgFinishThreadRun", { numberOfKeys: 3, lua: finishThreadRunScript });
  defineLuaCommand(redis, "tgCountUsage", { numberOfKeys: 1, lua: countUsageScript });
  defineLuaCommand(redis, "tgDeleteThread", { numberOfKeys: 4, lua: deleteThreadScript });
  return withScripts;
}

/** The nodes that hold data: every master of a cluster, or the one connection itself. */
export function dataNodes(redis: ITollgateRedis): Redis[] {
  if (!redis.isCluster) return [redis];
  return (redis as unknown as Cluster).nodes("master");
}

/**
 * The node connection that carries the commands on the keys of `slot`: the connection itself, or, on a
 * cluster, its connection to the master serving the slot now (undefined until the cluster knows its
 * slots). A command about a connection (CLIENT ID, CLIENT UNBLOCK) must go there: a cluster client sends
 * it to any node otherwise.
 */
export function nodeServingSlot(redis: ITollgateRedis, slot: number): Redis | undefined {
  if (!redis.isCluster) return redis;
  const cluster = redis as unknown as Cluster;
  const master = cluster.slots[slot]?.[0];
  return cluster.nodes("master").find((node) => `${node.options.host}:${node.options.port}` === master);
}

/** The hash slot of `key` (CLUSTER KEYSLOT), or 0 on a single node, where there are no slots. */
export async function keySlot(redis: ITollgateRedis, key: string): Promise<number> {
  if (!redis.isCluster) return 0;
  return (await (redis as unknown as Cluster).cluster("KEYSLOT", key)) as number;
}

/**
 * Whether a connection can take commands right now without queueing them. A single node's socket stops
 * being writable before its status changes; a cluster has no one socket, its status says it.
 */
export function connectionUsable(redis: ITollgateRedis): boolean {
  if (redis.status !== "ready") return false;
  if (redis.isCluster) return true;
  return redis.stream?.writable === true;
}

/** What of an ioredis Command this needs: its timeout, started once (the first call wins). */
interface ITimedCommand {
  setTimeout(ms: number): void;
}

/** When each command queued in a pipeline must have its answer, fixed when it was issued. */
const issuedDeadlines = new WeakMap<ITimedCommand, number>();

/**
 * A client connection's command timeout counts from when a command is issued, and its timer starts when
 * the command is written. Within `withRedisBudget` (an API request) the deadline is what is left of the
 * request's budget, so a request's commands together take no longer than it.
 *
 * With auto-pipelining, a command issued while another pipeline is in flight waits in the next pipeline,
 * unwritten, until that one has all its replies; a timeout counted from the write would come on top of
 * that wait (up to twice `commandTimeoutMs`). So its deadline is fixed when it is queued, and its timer
 * is armed, for what is left of it, only when the pipeline writes it. Never earlier: ioredis tells an
 * auto-pipelined command's caller only when its whole pipeline has settled, and a pipeline counts its
 * replies from when it is sent. A command that timed out while still queued was counted before the count
 * began and never again (its late reply is dropped), so its pipeline never settled, and every command
 * issued on the connection after it waited behind that pipeline forever (issue 38: the API's reads hung
 * after one Redis pause). Armed at the write, every written command settles (by its reply or its timer),
 * so every pipeline does. ioredis arms a command's timer once, so its own (at the write) changes nothing.
 */
export function boundCommandTime(redis: Redis, commandTimeoutMs: number): void {
  const deadlineFromNow = () =>
    performance.now() + Math.min(commandTimeoutMs, remainingRedisBudgetMs() ?? commandTimeoutMs);
  const sendCommand = redis.sendCommand.bind(redis);
  // Every command reaches Redis through here, a pipeline's as it writes them: the one place a timer starts.
  redis.sendCommand = ((command: ITimedCommand & Parameters<Redis["sendCommand"]>[0], ...rest: unknown[]) => {
    const deadline = issuedDeadlines.get(command) ?? deadlineFromNow();
    command.setTimeout(Math.max(1, deadline - performance.now()));
    return (sendCommand as (...args: unknown[]) => unknown)(command, ...rest);
  }) as Redis["sendCommand"];
  const createPipeline = redis.pipeline.bind(redis);
  redis.pipeline = ((commands?: unknown[][]) => {
    // A Pipeline queues a command through its own sendCommand (not typed on ChainableCommander).
    const pipeline = createPipeline(commands as never) as ReturnType<Redis["pipeline"]> & {
      sendCommand(command: ITimedCommand): unknown;
    };
    const queue = pipeline.sendCommand.bind(pipeline);
    pipeline.sendCommand = (command) => {
      // A cluster's redirected pipeline queues its commands again: they keep the deadline they were issued with.
      if (!issuedDeadlines.has(command)) issuedDeadlines.set(command, deadlineFromNow());
      return queue(command);
    };
    return pipeline;
  }) as Redis["pipeline"];
}
