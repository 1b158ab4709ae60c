import { startAllocationCounter } from "./allocation.js";
import { difference, luaCalls, total } from "./client-commands.js";
import type { IBenchEnvironment } from "./environment.js";
import { ownCpuMs, processCpuMs } from "./process-stats.js";
import { redisCpuMs, serverCommandStats } from "./redis-stats.js";

/** What a batch of runs cost, per run. */
export interface IRunCost {
  /** CPU of the bench process (caller and in-process workers) plus the contender's child processes. */
  processCpuMs: number;
  /** CPU of redis-server (INFO cpu). */
  redisCpuMs: number;
  /** Commands Redis executed (INFO commandstats; commands inside Lua scripts included). */
  serverCommands: number;
  /** Script calls Redis executed (EVALSHA/EVAL/FCALL). */
  serverLuaCalls: number;
  /** Commands sent by this process's clients (counted in ioredis; child processes not seen). */
  clientCommands: number;
  clientLuaCalls: number;
  /** Socket writes of this process to Redis: round trips (a pipeline or MULTI is one). */
  clientRoundTrips: number;
  /** KB this process allocated on the V8 heap (caller and in-process workers; child processes not seen). */
  allocatedKb: number;
}

interface ICostSnapshot {
  ownCpu: number;
  childCpu: number;
  redisCpu: number;
  server: Record<string, number>;
  client: Record<string, number>;
  roundTrips: number;
}

async function snapshot(
  environment: IBenchEnvironment,
  childPids: readonly number[],
): Promise<ICostSnapshot> {
  const childCpu = (await Promise.all(childPids.map(processCpuMs))).reduce((sum, value) => sum + value, 0);
  return {
    ownCpu: ownCpuMs(),
    childCpu,
    redisCpu: await redisCpuMs(environment.redis.redis),
    server: await serverCommandStats(environment.redis.redis),
    client: environment.clientCommands.read(),
    roundTrips: environment.roundTrips.read(),
  };
}

/**
 * Runs `body` (which runs `runs` runs) and returns its cost per run. Everything else that shares the
 * process and Redis (idle workers of the other contenders: blocking reads, stalled checks) is counted
 * too; it is small next to a batch and falls on every contender alike.
 */
export async function measureRunCost(
  environment: IBenchEnvironment,
  childPids: readonly number[],
  runs: number,
  body: () => Promise<void>,
): Promise<IRunCost> {
  const before = await snapshot(environment, childPids);
  const allocation = startAllocationCounter();
  await body();
  const allocatedBytes = allocation.stop();
  const after = await snapshot(environment, childPids);
  const server = difference(after.server, before.server);
  // The snapshots' own INFO calls are the benchmark's, not the contender's.
  delete server.info;
  const client = difference(after.client, before.client);
  delete client.info;
  const perRun = (value: number) => Math.round((value / runs) * 1000) / 1000;
  return {
    processCpuMs: perRun(after.ownCpu - before.ownCpu + after.childCpu - before.childCpu),
    redisCpuMs: perRun(after.redisCpu - before.redisCpu),
    serverCommands: perRun(total(server)),
    serverLuaCalls: perRun(luaCalls(server)),
    clientCommands: perRun(total(client)),
    clientLuaCalls: perRun(luaCalls(client)),
    // The after snapshot's two INFO commands are written before it reads the count: the bench's, not the run's.
    clientRoundTrips: perRun(after.roundTrips - before.roundTrips - 2),
    allocatedKb: perRun(allocatedBytes / 1024),
  };
}
