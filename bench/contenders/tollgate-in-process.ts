import pino from "pino";
import { GatewayClient } from "../../src/producer/index.js";
import { type ITollgateWorker, startWorker } from "../../src/workers/index.js";
import { benchGateway } from "../bench-gateway.js";
import type { IContender } from "./contender.js";
import { askTollgate } from "./tollgate-ask.js";

/**
 * What the contender runs Tollgate from: the source (through tsx, as `npm run bench` runs) unless given
 * the compiled modules (bench/lib/built-worker.ts, `compiledTollgate`).
 */
export interface ITollgateModules {
  GatewayClient: typeof GatewayClient;
  startWorker: typeof startWorker;
  gateway: typeof benchGateway;
}

const sourceModules: ITollgateModules = { GatewayClient, startWorker, gateway: benchGateway };

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
  /** @defaultValue the source */
  modules?: ITollgateModules;
}): Promise<ITollgateContender & { worker: ITollgateWorker }> {
  const { GatewayClient, startWorker, gateway } = options.modules ?? sourceModules;
  const runtime = { redisUrl: options.redisUrl, prefix: options.prefix };
  const worker = await startWorker({
    gateway,
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
  const client = new GatewayClient({ gateway, runtime });
  return {
    name: options.modules ? "Tollgate ask, in-process worker, compiled" : "Tollgate ask, in-process worker",
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
