import { Redis, type RedisOptions } from "ioredis";
import {
  createApprovalScript,
  createRunScript,
  decideApprovalScript,
  finishRunScript,
  finishThreadRunScript,
  requestCancelScript,
  saveRunScript,
} from "./lua-scripts.js";

/** ioredis with Tollgate's scripts defined on it. */
export interface ITollgateRedis extends Redis {
  tgCreateRun(
    runKey: string,
    threadRunsKey: string,
    eventsKey: string,
    ...args: string[]
  ): Promise<string | null>;
  tgSaveRun(runKey: string, eventsKey: string, ...args: string[]): Promise<number>;
  tgFinishRun(
    runKey: string,
    eventsKey: string,
    threadRunsKey: string,
    threadMessagesKey: string,
    ...args: string[]
  ): Promise<[number, string]>;
  tgRequestCancel(cancelKey: string, eventsKey: string, ...args: string[]): Promise<number>;
  tgCreateApproval(
    approvalKey: string,
    pendingKey: string,
    eventsKey: string,
    tenantPendingKey: string,
    ...args: string[]
  ): Promise<number>;
  tgDecideApproval(
    approvalKey: string,
    pendingKey: string,
    eventsKey: string,
    tenantPendingKey: string,
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
  url: string,
  role: TConnectionRole,
  extra: RedisOptions = {},
  onError: (error: Error) => void = () => undefined,
): ITollgateRedis {
  const options: RedisOptions =
    role === "worker"
      ? { maxRetriesPerRequest: null, ...extra }
      : { maxRetriesPerRequest: 1, enableOfflineQueue: false, ...extra };
  const redis = new Redis(url, { lazyConnect: false, ...options });
  // ioredis reconnects by itself; without a listener it prints every failed attempt to the console.
  redis.on("error", onError);
  return defineScripts(redis);
}

export function defineScripts(redis: Redis): ITollgateRedis {
  const withScripts = redis as ITollgateRedis;
  if (typeof withScripts.tgCreateRun === "function") return withScripts;
  redis.defineCommand("tgCreateRun", { numberOfKeys: 3, lua: createRunScript });
  redis.defineCommand("tgSaveRun", { numberOfKeys: 2, lua: saveRunScript });
  redis.defineCommand("tgFinishRun", { numberOfKeys: 4, lua: finishRunScript });
  redis.defineCommand("tgRequestCancel", { numberOfKeys: 2, lua: requestCancelScript });
  redis.defineCommand("tgCreateApproval", { numberOfKeys: 4, lua: createApprovalScript });
  redis.defineCommand("tgDecideApproval", { numberOfKeys: 4, lua: decideApprovalScript });
  redis.defineCommand("tgFinishThreadRun", { numberOfKeys: 2, lua: finishThreadRunScript });
  return withScripts;
}
