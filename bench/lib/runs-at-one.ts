import type { IContender } from "../contenders/contender.js";
import type { IBenchEnvironment } from "./environment.js";
import { infoBytes, redisInputBytes } from "./redis-stats.js";

/**
 * Runs at 1 in flight: `runs` runs of one contender back to back (so that writes a run leaves behind,
 * such as the worker's next blocking fetch, fall on the same contender). Client round trips: this
 * process's socket writes to Redis divided by the runs (a contender with worker processes shows only its
 * caller's). Bytes: what Redis received from every client (its worker processes' too) per run, in KB.
 */
export async function runsAtOneInFlight(
  environment: IBenchEnvironment,
  contender: IContender,
  runs: number,
): Promise<{ roundTrips: number; redisInputKb: number }> {
  const redis = environment.redis.redis;
  const bytesBefore = await redisInputBytes(redis);
  const before = environment.roundTrips.read();
  for (let index = 0; index < runs; index++) await contender.run(`round-trips-${index}`);
  const roundTrips = environment.roundTrips.read() - before;
  const bytes = (await redisInputBytes(redis)) - bytesBefore - infoBytes("stats");
  return {
    roundTrips: Math.round((roundTrips / runs) * 100) / 100,
    redisInputKb: Math.round((bytes / runs / 1024) * 100) / 100,
  };
}
