import pino from "pino";
import type { TRuntimeOptionsInput } from "../../src/config/runtime-options.js";
import type { IGateway } from "../../src/gateway/index.js";
import { type IScriptedModel, startScriptedModel } from "../../src/model/scripted/index.js";
import { GatewayClient } from "../../src/producer/index.js";
import { type IStartWorkerOptions, type ITollgateWorker, startWorker } from "../../src/workers/index.js";
import { testRedisOptions } from "./redis-url.js";
import { deletePrefix, uniquePrefix } from "./test-prefix.js";

/** Short locks so that crash tests recover in seconds; real Redis expiry, no fake timers. */
export const fastRuntime = {
  lockDurationMs: 2_000,
  stalledIntervalMs: 1_000,
  maxStalledCount: 5,
  jobBackoffMs: 50,
  shutdownTimeoutMs: 2_000,
  cancelGraceMs: 10_000,
  threadRecheckMs: 2_000,
};

export interface IHarness {
  prefix: string;
  model: IScriptedModel;
  client: GatewayClient;
  runtimeOptions: { prefix: string } & typeof testRedisOptions & typeof fastRuntime;
  workers: ITollgateWorker[];
  startWorker(overrides?: Partial<IStartWorkerOptions>): Promise<ITollgateWorker>;
  close(): Promise<void>;
}

/** A real Redis prefix, the real scripted model over HTTP, a client, and workers on demand. */
export async function createHarness(
  gateway: IGateway,
  label: string,
  runtimeOverrides: TRuntimeOptionsInput = {},
): Promise<IHarness> {
  const prefix = uniquePrefix(label);
  const model = await startScriptedModel({ port: 0 });
  const runtimeOptions = { ...testRedisOptions, prefix, ...fastRuntime, ...runtimeOverrides };
  const client = new GatewayClient({ gateway, runtime: runtimeOptions });
  const workers: ITollgateWorker[] = [];
  const harness: IHarness = {
    prefix,
    model,
    client,
    runtimeOptions,
    workers,
    async startWorker(overrides = {}) {
      const worker = await startWorker({
        gateway,
        runtime: runtimeOptions,
        model: { baseURL: model.url, maxRetries: 2 },
        logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
        handleSignals: false,
        concurrency: 8,
        ...overrides,
      });
      workers.push(worker);
      return worker;
    },
    async close() {
      await Promise.allSettled(workers.map((worker) => worker.close()));
      // The client a test put in place of the first one (a restart), else the first.
      await harness.client.close();
      await model.close();
      await deletePrefix(prefix);
    },
  };
  return harness;
}
