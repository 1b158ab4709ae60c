import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { testRedisUrl } from "./redis-url.js";

/** A prefix no other test uses. */
export function uniquePrefix(label: string): string {
  return `tgtest-${label}-${randomUUID().slice(0, 8)}`;
}

/** Deletes every key under the prefix (queues and Tollgate's own keys). */
export async function deletePrefix(prefix: string): Promise<void> {
  const redis = new Redis(testRedisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
}
