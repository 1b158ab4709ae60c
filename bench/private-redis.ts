import { Redis } from "ioredis";
import { startPrivateRedis as startServer } from "../src/cli/demo/private-redis.js";

/**
 * A private redis-server on a free port (the demo's own starter), so that the numbers are Tollgate's
 * alone, with a connection for the benchmark's own reads (INFO, MEMORY USAGE).
 */
export async function startPrivateRedis(): Promise<{ url: string; redis: Redis; stop(): Promise<void> }> {
  const server = await startServer();
  const redis = new Redis(server.url, { maxRetriesPerRequest: null });
  return {
    url: server.url,
    redis,
    async stop() {
      redis.disconnect();
      await server.stop();
    },
  };
}
