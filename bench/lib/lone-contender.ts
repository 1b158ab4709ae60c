import { bullmqFloor } from "../contenders/bullmq-floor.js";
import type { IContender } from "../contenders/contender.js";
import { tollgateInProcess } from "../contenders/tollgate-in-process.js";
import { compiledTollgate } from "./built-worker.js";

/**
 * The contenders a diagnostic measures alone in its process (bench/cpu-per-run.ts, bench/gc-per-run.ts):
 * the floor, or Tollgate with an in-process worker from the source (tsx) or from the compiled build.
 */
export type TLoneContender = "floor" | "tollgate" | "tollgate-compiled";

/** `which` names a lone contender; the diagnostics exit with their usage line otherwise. */
export function isLoneContender(which: string): which is TLoneContender {
  return which === "floor" || which === "tollgate" || which === "tollgate-compiled";
}

/**
 * Starts it on the given Redis and model at `concurrency`. `BENCH_MODEL_STREAMING=off` (or `on`) sets
 * whether Tollgate's worker streams the model's reply (its default: streamed; the floor never streams).
 */
export async function startLoneContender(
  which: TLoneContender,
  options: { redisUrl: string; modelUrl: string; prefix: string; concurrency: number },
): Promise<IContender> {
  if (which === "floor") return bullmqFloor(options);
  const streaming = process.env.BENCH_MODEL_STREAMING;
  return tollgateInProcess({
    ...options,
    ...(streaming !== undefined ? { streaming: streaming !== "off" } : {}),
    ...(which === "tollgate-compiled" ? { modules: await compiledTollgate() } : {}),
  });
}
