/**
 * The floor's workers in a process of their own (`node --import tsx bench/floor-worker-process.ts`), for
 * comparing with `tollgate worker` processes like with like. Prints "floor workers ready" once they are.
 */
import { startFloorWorkers } from "./contenders/floor-workers.js";

const workers = await startFloorWorkers({
  redisUrl: process.env.REDIS_URL!,
  modelUrl: process.env.MODEL_URL!,
  prefix: process.env.FLOOR_PREFIX!,
  concurrency: Number(process.env.FLOOR_CONCURRENCY),
});
process.once("SIGTERM", () => {
  void workers.close().then(() => process.exit(0));
});
process.stdout.write("floor workers ready\n");
