import type { TEnv } from "../../config/env.js";
import { CliError } from "../cli-errors.js";
import { redactRedisUrl, redisAnswers } from "../redis/redis-ping.js";
import { startPrivateRedis } from "./private-redis.js";

export interface IDemoRedis {
  url: string;
  /** Where it came from, for the transcript's header. */
  description: string;
  /** Stops a Redis the demo started; a no-op for one it found. */
  stop(): Promise<void>;
}

const localRedisUrl = "redis://127.0.0.1:6379";

/** REDIS_URL when set; else a local Redis on 6379 when one answers; else a private redis-server. */
export async function acquireDemoRedis(env: TEnv): Promise<IDemoRedis> {
  const noop = async () => undefined;
  if (env.REDIS_URL !== undefined) {
    if (!(await redisAnswers(env.REDIS_URL, 2_000))) {
      throw new CliError(
        `REDIS_URL=${redactRedisUrl(env.REDIS_URL)} does not answer; start it, or unset REDIS_URL`,
      );
    }
    return { url: env.REDIS_URL, description: `${redactRedisUrl(env.REDIS_URL)} (REDIS_URL)`, stop: noop };
  }
  if (await redisAnswers(localRedisUrl)) {
    return { url: localRedisUrl, description: `${localRedisUrl} (found running)`, stop: noop };
  }
  const privateRedis = await startPrivateRedis();
  return {
    url: privateRedis.url,
    description: `${privateRedis.url} (a private redis-server, stopped at the end)`,
    stop: privateRedis.stop,
  };
}
