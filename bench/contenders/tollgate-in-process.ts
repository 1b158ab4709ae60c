import pino from "pino";
import { GatewayClient } from "../../src/producer/index.js";
import { type ITollgateWorker, startWorker } from "../../src/workers/index.js";
import { benchGateway } from "../bench-gateway.js";
import type { IContender } from "./contender.js";
import { askTollgate } from "./tollgate-ask.js";

export interface ITollgateContender extends IContender {
  client: GatewayClient;
  prefix: string;
}

/** Tollgate with its worker in the bench process: GatewayClient.ask, workers silent, no metrics. */
export async function tollgateInProcess(options: {
  redisUrl: string;
  modelUrl: string;
  prefix: string;
  concurrency: number;
  /** The model reply streamed or not; unset: Tollgate's default (streamed). Diagnostics only. */
  streaming?: boolean;
}): Promise<ITollgateContender & { worker: ITollgateWorker }> {
  const runtime = { redisUrl: options.redisUrl, prefix: options.prefix };
  const worker = await startWorker({
    gateway: benchGateway,
    runtime,
    concurrency: options.concurrency,
    model: {
      baseURL: options.modelUrl,
      maxRetries: 0,
      ...(options.streaming !== undefined ? { streaming: options.streaming } : {}),
    },
    logger: pino({ level: "silent" }),
    handleSignals: false,
  });
  const client = new GatewayClient({ gateway: benchGateway, runtime });
  return {
    name: "Tollgate ask, in-process worker",
    prefix: options.prefix,
    client,
    worker,
    childPids: [],
    run: (tag, calls) => askTollgate(client, tag, calls),
    async close() {
      await worker.close();
      await client.close();
    },
  };
}
