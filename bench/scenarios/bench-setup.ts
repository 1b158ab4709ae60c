import { randomUUID } from "node:crypto";
import pino from "pino";
import { type IScriptedModel, startScriptedModel } from "../../src/model/index.js";
import { GatewayClient } from "../../src/producer/index.js";
import { type ITollgateWorker, startWorker } from "../../src/workers/index.js";
import { benchGateway } from "../bench-gateway.js";
import { startPrivateRedis } from "../private-redis.js";

export interface IBenchSetup {
  redisUrl: string;
  prefix: string;
  model: IScriptedModel;
  client: GatewayClient;
  redis: Awaited<ReturnType<typeof startPrivateRedis>>["redis"];
  startWorker(concurrency: number): Promise<ITollgateWorker>;
  close(): Promise<void>;
}

export async function benchSetup(): Promise<IBenchSetup> {
  const privateRedis = await startPrivateRedis();
  const model = await startScriptedModel({ port: 0 });
  const prefix = `bench-${randomUUID().slice(0, 8)}`;
  const runtime = { redisUrl: privateRedis.url, prefix };
  const client = new GatewayClient({ gateway: benchGateway, runtime });
  const workers: ITollgateWorker[] = [];
  return {
    redisUrl: privateRedis.url,
    prefix,
    model,
    client,
    redis: privateRedis.redis,
    async startWorker(concurrency) {
      const worker = await startWorker({
        gateway: benchGateway,
        runtime,
        concurrency,
        model: { baseURL: model.url },
        logger: pino({ level: "silent" }),
        handleSignals: false,
      });
      workers.push(worker);
      return worker;
    },
    async close() {
      await Promise.all(workers.map((worker) => worker.close()));
      await client.close();
      await model.close();
      await privateRedis.stop();
    },
  };
}

export function oneToolScript(value: string): string {
  return JSON.stringify({ script: [{ calls: [{ name: "echo", input: { value } }] }, { text: "done" }] });
}

export function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}
