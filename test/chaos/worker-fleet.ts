import { type IChildWorker, spawnChildWorker } from "../helpers/child-worker.js";
import type { IRandom } from "./chaos-profile.js";

export interface IWorkerFleet {
  /** Every process id that was SIGKILLed. */
  killedPids: Set<number>;
  kills: number;
  restarts: number;
  /** SIGKILLs a random worker and starts a new one in its place. */
  killOneAndRestart(random: IRandom): Promise<void>;
  stop(): Promise<void>;
}

/** Worker processes of the test gateway (test/fixtures/worker-process.ts), killed and replaced at will. */
export async function startWorkerFleet(options: {
  size: number;
  prefix: string;
  redisUrl: string;
  modelUrl: string;
  ledgerFile: string;
  runtimeOverrides?: Record<string, unknown>;
  /** A fixture gateway module (file URL) instead of the test gateway. */
  gatewayModule?: string;
}): Promise<IWorkerFleet> {
  const spawnOne = () =>
    spawnChildWorker({
      prefix: options.prefix,
      redisUrl: options.redisUrl,
      modelUrl: options.modelUrl,
      ledgerFile: options.ledgerFile,
      ...(options.runtimeOverrides ? { runtimeOverrides: options.runtimeOverrides } : {}),
      ...(options.gatewayModule ? { gatewayModule: options.gatewayModule } : {}),
    });
  const workers: IChildWorker[] = [];
  for (let index = 0; index < options.size; index += 1) workers.push(spawnOne());
  await Promise.all(workers.map((worker) => worker.ready));
  const fleet: IWorkerFleet = {
    killedPids: new Set(),
    kills: 0,
    restarts: 0,
    async killOneAndRestart(random) {
      const index = random.integer(0, workers.length - 1);
      const victim = workers[index]!;
      if (victim.child.pid !== undefined) fleet.killedPids.add(victim.child.pid);
      victim.child.kill("SIGKILL");
      await victim.exited;
      fleet.kills += 1;
      const replacement = spawnOne();
      workers[index] = replacement;
      await replacement.ready;
      fleet.restarts += 1;
    },
    async stop() {
      await Promise.all(
        workers.map(async (worker) => {
          if (worker.child.exitCode === null && worker.child.signalCode === null)
            worker.child.kill("SIGTERM");
          await worker.exited;
        }),
      );
    },
  };
  return fleet;
}
