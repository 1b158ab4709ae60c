/**
 * The workers of the floor with records in a process of their own (`node --import tsx
 * bench/floor-records-worker-process.ts`), as bench/floor-worker-process.ts runs the floor's. Prints
 * "floor records workers ready" once they are.
 */
import { startFloorRecordsWorkers } from "./contenders/floor-records-workers.js";

const workers = await startFloorRecordsWorkers({
  redisUrl: process.env.REDIS_URL!,
  modelUrl: process.env.MODEL_URL!,
  prefix: process.env.FLOOR_PREFIX!,
  concurrency: Number(process.env.FLOOR_CONCURRENCY),
  streaming: process.env.FLOOR_STREAMING !== "off",
});
process.once("SIGTERM", () => {
  void workers.close().then(() => process.exit(0));
});
process.stdout.write("floor records workers ready\n");
