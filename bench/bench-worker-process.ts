/** A worker process for the crash-recovery benchmark; prints a line when a tool starts. */
import pino from "pino";
import { startWorker } from "../src/workers/index.js";
import { benchGateway } from "./bench-gateway.js";

const worker = await startWorker({
  gateway: benchGateway,
  runtime: JSON.parse(process.env.BENCH_RUNTIME ?? "{}"),
  model: { baseURL: process.env.MODEL_URL!, maxRetries: 2 },
  logger: pino({ level: "silent" }),
});
process.stdout.write(`ready ${worker.queues.join(",")}\n`);
