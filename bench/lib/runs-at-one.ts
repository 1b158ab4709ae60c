import type { IContender } from "../contenders/contender.js";
import type { IBenchEnvironment } from "./environment.js";

/**
 * Client round trips per run at 1 in flight: `runs` runs of one contender back to back (so that writes
 * a run leaves behind, such as the worker's next blocking fetch, fall on the same contender), this
 * process's socket writes to Redis divided by the runs. A contender with worker processes shows only its
 * caller's.
 */
export async function roundTripsAtOneInFlight(
  environment: IBenchEnvironment,
  contender: IContender,
  runs: number,
): Promise<number> {
  const before = environment.roundTrips.read();
  for (let index = 0; index < runs; index++) await contender.run(`round-trips-${index}`);
  return Math.round(((environment.roundTrips.read() - before) / runs) * 100) / 100;
}
