import { GatewayClient } from "../../src/producer/index.js";
import { benchGateway } from "../bench-gateway.js";
import type { IBuiltWorker } from "../lib/built-worker.js";
import { type IChildService, startCliWorker } from "../lib/child-services.js";
import { askTollgate } from "./tollgate-ask.js";
import type { ITollgateContender } from "./tollgate-in-process.js";

/**
 * Tollgate as deployed: `tollgate worker` processes (logs at info, metrics served) and
 * GatewayClient.ask in the bench process. `processes` workers share `concurrency` between them.
 */
export async function tollgateCli(options: {
  redisUrl: string;
  modelUrl: string;
  prefix: string;
  concurrency: number;
  processes?: number;
  name?: string;
  built?: IBuiltWorker;
}): Promise<ITollgateContender & { workers: IChildService[] }> {
  const processes = options.processes ?? 1;
  const workers = await Promise.all(
    Array.from({ length: processes }, () =>
      startCliWorker({ ...options, concurrency: Math.max(1, Math.round(options.concurrency / processes)) }),
    ),
  );
  const client = new GatewayClient({
    gateway: benchGateway,
    runtime: { redisUrl: options.redisUrl, prefix: options.prefix },
  });
  return {
    name: options.name ?? "Tollgate ask, CLI worker process",
    prefix: options.prefix,
    client,
    workers,
    childPids: workers.map((worker) => worker.pid),
    run: (tag, calls) => askTollgate(client, tag, calls),
    async close() {
      await Promise.all(workers.map((worker) => worker.stop()));
      await client.close();
    },
  };
}
