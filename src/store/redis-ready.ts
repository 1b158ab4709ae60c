import type { Redis } from "ioredis";
import { TollgateError } from "../errors/index.js";

/**
 * The promise every caller waiting for a connection shares: one `ready` listener per connection,
 * however many requests wait. A listener per caller on a shared client (every `ask`, every API request
 * while Redis reconnects) grows with the load, and Node warns past ten (MaxListenersExceededWarning).
 */
const pendingReady = new WeakMap<Redis, Promise<void>>();

function readyOnce(redis: Redis): Promise<void> {
  let pending = pendingReady.get(redis);
  if (!pending) {
    pending = new Promise<void>((resolve) => {
      redis.once("ready", () => {
        pendingReady.delete(redis);
        resolve();
      });
    });
    pendingReady.set(redis, pending);
  }
  return pending;
}

/**
 * Resolves once the connection (a node, a Sentinel-managed primary or a cluster) is ready; past
 * `timeoutMs` throws TG_REDIS_UNAVAILABLE. Each caller has its own deadline, not its own listener.
 */
export async function whenRedisReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === "ready") return;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new TollgateError("TG_REDIS_UNAVAILABLE", `Redis did not answer within ${timeoutMs} ms.`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([readyOnce(redis), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
