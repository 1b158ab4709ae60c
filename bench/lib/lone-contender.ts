import { bullmqFloor } from "../contenders/bullmq-floor.js";
import type { IContender } from "../contenders/contender.js";
import { floorWithRecords } from "../contenders/floor-with-records.js";
import { tollgateInProcess } from "../contenders/tollgate-in-process.js";
import { compiledTollgate } from "./built-worker.js";

/**
 * The contenders a diagnostic measures alone in its process (bench/cpu-per-run.ts, bench/gc-per-run.ts):
 * the floor, the floor with Tollgate's records (floor-with-records.ts), or Tollgate with an in-process
 * worker from the source (tsx) or from the compiled build.
 */
export type TLoneContender = "floor" | "floor-records" | "tollgate" | "tollgate-compiled";

const loneContenders: readonly string[] = ["floor", "floor-records", "tollgate", "tollgate-compiled"];

/** The lone contenders as the diagnostics' usage lines name them. */
export const loneContenderChoices = `<${loneContenders.join("|")}>`;

/** `which` names a lone contender; the diagnostics exit with their usage line otherwise. */
export function isLoneContender(which: string): which is TLoneContender {
  return loneContenders.includes(which);
}

/**
 * Starts it on the given Redis and model at `concurrency`. `BENCH_MODEL_STREAMING=off` (or `on`) sets
 * whether Tollgate's worker, and the floor with records', stream the model's reply (their default:
 * streamed; the floor never streams).
 */
export async function startLoneContender(
  which: TLoneContender,
  options: { redisUrl: string; modelUrl: string; prefix: string; concurrency: number },
): Promise<IContender> {
  if (which === "floor") return bullmqFloor(options);
  const streaming = process.env.BENCH_MODEL_STREAMING;
  const streamingOption = streaming !== undefined ? { streaming: streaming !== "off" } : {};
  if (which === "floor-records") return floorWithRecords({ ...options, ...streamingOption });
  return tollgateInProcess({
    ...options,
    ...streamingOption,
    ...(which === "tollgate-compiled" ? { modules: await compiledTollgate() } : {}),
  });
}
