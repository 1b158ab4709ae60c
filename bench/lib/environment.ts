import { aiSdk } from "../contenders/ai-sdk.js";
import { bullmqFloor } from "../contenders/bullmq-floor.js";
import { bullmqHop } from "../contenders/bullmq-hop.js";
import type { IContender } from "../contenders/contender.js";
import { floorWithRecords } from "../contenders/floor-with-records.js";
import { openAiLoop } from "../contenders/openai-loop.js";
import { tollgateCli } from "../contenders/tollgate-cli.js";
import { type ITollgateContender, tollgateInProcess } from "../contenders/tollgate-in-process.js";
import { type IChildService, startModelServer } from "./child-services.js";
import { countClientCommands } from "./client-commands.js";
import { type IPrivateRedis, startPrivateRedis } from "./private-redis.js";
import { countRedisRoundTrips } from "./redis-round-trips.js";

/** Worker concurrency of the shared contenders: enough for 50 runs in flight and 32 parallel calls. */
export const sharedConcurrency = 50;

/** The standard contenders, started once and shared by the scenarios that compare them. */
export interface IContenders {
  openAiLoop: IContender;
  aiSdk: IContender;
  floor: IContender;
  /** The floor with its workers in a process of their own: what the CLI worker contender compares with. */
  floorProcess: IContender;
  /**
   * The floor keeping Tollgate's records (state, events, indexes, thread, usage) on raw BullMQ: what the
   * records cost with no Tollgate code. Compared with the floor and with Tollgate's in-process worker.
   */
  floorRecords: IContender;
  hop: IContender;
  tollgateInProcess: ITollgateContender;
  tollgateCli: ITollgateContender;
}

/** What every scenario shares: one private Redis, one scripted model process, the contenders. */
export interface IBenchEnvironment {
  quick: boolean;
  /** `--parked 10000,100000`: the parked-memory scenario's levels. */
  parkedLevels: number[] | undefined;
  /** `--steps 1,8,32,100`: the long-run scenario's step counts (1 first). */
  stepCounts: number[] | undefined;
  redis: IPrivateRedis;
  model: IChildService & { url: string };
  clientCommands: ReturnType<typeof countClientCommands>;
  /** Socket writes of this process to the private Redis: its client round trips. */
  roundTrips: ReturnType<typeof countRedisRoundTrips>;
  contenders: IContenders;
  /** Closed with the environment. */
  onClose(close: () => Promise<void>): void;
  close(): Promise<void>;
}

export async function startEnvironment(options: {
  quick: boolean;
  parkedLevels: number[] | undefined;
  stepCounts: number[] | undefined;
}): Promise<IBenchEnvironment> {
  const clientCommands = countClientCommands();
  const redis = await startPrivateRedis();
  const roundTrips = countRedisRoundTrips(Number(new URL(redis.url).port));
  const model = await startModelServer();
  const common = { redisUrl: redis.url, modelUrl: model.url, concurrency: sharedConcurrency };
  const contenders: IContenders = {
    openAiLoop: openAiLoop(model.url),
    aiSdk: aiSdk(model.url),
    floor: await bullmqFloor({ ...common, prefix: "floor" }),
    floorProcess: await bullmqFloor({ ...common, prefix: "floor-process", workerProcess: true }),
    floorRecords: await floorWithRecords({ ...common, prefix: "floor-records" }),
    hop: await bullmqHop({ ...common, prefix: "hop" }),
    tollgateInProcess: await tollgateInProcess({ ...common, prefix: "tg-in-process" }),
    tollgateCli: await tollgateCli({ ...common, prefix: "tg-cli" }),
  };
  const closers: Array<() => Promise<void>> = Object.values(contenders).map(
    (contender) => () => contender.close(),
  );
  return {
    ...options,
    redis,
    model,
    clientCommands,
    roundTrips,
    contenders,
    onClose: (close) => closers.push(close),
    async close() {
      for (const close of closers.reverse()) await close();
      await model.stop();
      await redis.stop();
    },
  };
}
