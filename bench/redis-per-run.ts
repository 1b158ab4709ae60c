/**
 * `npx tsx bench/redis-per-run.ts [runs] [rounds]`: what a run costs Redis, one contender at a time on a
 * private redis-server (no other contender's workers beside it, unlike `npm run bench`'s alternation): the
 * floor, the floor with Tollgate's records (bench/contenders/floor-with-records.ts) and Tollgate, each
 * with its workers in the bench process and in a process of their own (the `tollgate worker` CLI, from
 * `dist/` when it exists). Per run, from INFO deltas over `runs` runs at 50 in flight after a warm-up of
 * 400: Redis CPU, commands (inside scripts too), the reads and writes of its event loop (one read takes
 * whatever a client's socket holds: auto-pipelined commands arrive together) and the bytes received. A
 * diagnostic for issue 26's Redis CPU target, not part of `npm run bench`.
 */
import { bullmqFloor } from "./contenders/bullmq-floor.js";
import type { IContender } from "./contenders/contender.js";
import { floorWithRecords } from "./contenders/floor-with-records.js";
import { tollgateCli } from "./contenders/tollgate-cli.js";
import { tollgateInProcess } from "./contenders/tollgate-in-process.js";
import { withInFlight } from "./lib/alternate.js";
import { startModelServer } from "./lib/child-services.js";
import { startPrivateRedis } from "./lib/private-redis.js";

const [runsArgument = "1500", roundsArgument = "2"] = process.argv.slice(2);
const runs = Number(runsArgument);
const rounds = Number(roundsArgument);
const inFlight = 50;
const redis = await startPrivateRedis();
const model = await startModelServer();

/** The INFO fields read, summed where Redis splits them. */
async function serverCounters(): Promise<Record<string, number>> {
  const text = String(await redis.redis.info("all"));
  const field = (name: string) => Number(new RegExp(`^${name}:([0-9.]+)`, "m").exec(text)?.[1] ?? Number.NaN);
  return {
    cpuMs: (field("used_cpu_sys") + field("used_cpu_user")) * 1000,
    commands: field("total_commands_processed"),
    reads: field("total_reads_processed"),
    writes: field("total_writes_processed"),
    bytesIn: field("total_net_input_bytes"),
  };
}

const options = { redisUrl: redis.url, modelUrl: model.url, concurrency: inFlight };
const contenders: Record<string, (prefix: string) => Promise<IContender>> = {
  "raw BullMQ run (floor)": (prefix) => bullmqFloor({ ...options, prefix }),
  "raw BullMQ run (floor), worker process": (prefix) =>
    bullmqFloor({ ...options, prefix, workerProcess: true }),
  "floor with records": (prefix) => floorWithRecords({ ...options, prefix }),
  "floor with records, worker process": (prefix) =>
    floorWithRecords({ ...options, prefix, workerProcess: true }),
  "Tollgate ask, in-process worker": (prefix) => tollgateInProcess({ ...options, prefix }),
  "Tollgate ask, CLI worker process": (prefix) => tollgateCli({ ...options, prefix }),
};
try {
  console.log(
    "| round | contender | Redis CPU ms/run | commands/run | reads/run | writes/run | KB received/run |\n|---|---|---|---|---|---|---|",
  );
  for (let round = 1; round <= rounds; round++) {
    for (const [name, start] of Object.entries(contenders)) {
      const contender = await start(`rpr${round}-${Object.keys(contenders).indexOf(name)}`);
      try {
        await withInFlight(400, inFlight, (index) => contender.run(`warm-up-${index}`));
        const before = await serverCounters();
        await withInFlight(runs, inFlight, (index) => contender.run(`measured-${index}`));
        const after = await serverCounters();
        const perRun = (key: string) => ((after[key] ?? 0) - (before[key] ?? 0)) / runs;
        console.log(
          `| ${round} | ${name} | ${perRun("cpuMs").toFixed(3)} | ${perRun("commands").toFixed(1)} | ` +
            `${perRun("reads").toFixed(1)} | ${perRun("writes").toFixed(1)} | ${(perRun("bytesIn") / 1024).toFixed(1)} |`,
        );
      } finally {
        await contender.close();
      }
    }
  }
} finally {
  await model.stop();
  await redis.stop();
}
// As bench/cpu-per-run.ts: the contenders' closed clients may still hold a timer or a socket.
process.exit(0);
