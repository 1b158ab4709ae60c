import pino from "pino";
import { GatewayClient } from "../../src/producer/index.js";
import { startWorker } from "../../src/workers/index.js";
import { longRunGateway } from "../long-run-gateway.js";
import type { ILongRunContender } from "./long-run-contender.js";

/**
 * Tollgate in the long-run scenario: GatewayClient.ask with an in-process worker (silent, no metrics), as
 * tollgate-in-process.ts, on the long-run gateway (its one tool returns what the script asks for).
 * Each run may take one step more than it has tool steps (`maxSteps`), so that its last reply is the
 * script's answer; a step count Tollgate refuses fails the run with Tollgate's error (the scenario reports
 * that level as refused).
 */
export async function tollgateLongRun(options: {
  redisUrl: string;
  modelUrl: string;
  prefix: string;
  concurrency: number;
}): Promise<ILongRunContender> {
  const runtime = { redisUrl: options.redisUrl, prefix: options.prefix };
  const worker = await startWorker({
    gateway: longRunGateway,
    runtime,
    concurrency: options.concurrency,
    model: { baseURL: options.modelUrl, maxRetries: 0 },
    logger: pino({ level: "silent" }),
    handleSignals: false,
  });
  const client = new GatewayClient({ gateway: longRunGateway, runtime });
  return {
    name: "Tollgate ask, in-process worker",
    async run({ input, steps, threadId }) {
      const response = await client.ask({
        input,
        maxSteps: steps + 1,
        userContext: { userId: "bench" },
        ...(threadId !== undefined ? { threadId } : {}),
      });
      if (response.status !== "completed" || response.text !== "done") {
        throw new Error(`Tollgate long run ended ${response.status}: ${response.text.slice(0, 200)}`);
      }
      return response.threadId;
    },
    async close() {
      await worker.close();
      await client.close();
    },
  };
}
