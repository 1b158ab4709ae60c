/**
 * `npx tsx bench/cpu-per-run.ts <floor|floor-records|tollgate|tollgate-compiled> [runs] [in flight]`:
 * runs/s, this process's CPU per run (split into the main thread's and the other threads', mostly V8's
 * garbage-collection helpers) and KB allocated on the V8 heap per run (bench/lib/allocation.ts) for one
 * contender alone in its process: the floor, the floor with Tollgate's records
 * (bench/contenders/floor-with-records.ts), or Tollgate with an in-process worker, from the source through
 * tsx as `npm run bench` runs it (`tollgate`) or from the compiled build as a service importing the package
 * runs it (`tollgate-compiled`). On a private redis-server and scripted model, after a warm-up of 600 runs.
 * Alternate processes of two builds to compare them: unlike `npm run bench`, no other contender shares the
 * process. A diagnostic, not part of `npm run bench`. `CPU_PROFILE=<file>` writes a V8 CPU profile of the
 * measured runs, `HEAP_PROFILE=<file>` a sampling heap profile (where the allocations come from; with
 * `HEAP_SURVIVORS=1`, only the objects that outlived a young collection: what is promoted).
 * `BENCH_MODEL_STREAMING=off` (or `on`) sets whether Tollgate's worker, and the floor with records', stream
 * the model's reply (their default: streamed; the floor never streams). `COMMAND_STATS=1` also prints the
 * Redis commands per run of the measured runs by name, with Redis's own time for each (INFO commandstats:
 * commands inside scripts included), most first. `SCRIPT_STATS=1` prints Redis's time per run by script, each
 * named (BullMQ's or Tollgate's, bench/lib/script-names.ts), from a SLOWLOG of every command (threshold 0;
 * commands run inside a script are listed too, and their time is also in their script's).
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { startAllocationCounter } from "./lib/allocation.js";
import { withInFlight } from "./lib/alternate.js";
import { startModelServer } from "./lib/child-services.js";
import { difference, total } from "./lib/client-commands.js";
import { isLoneContender, loneContenderChoices, startLoneContender } from "./lib/lone-contender.js";
import { startPrivateRedis } from "./lib/private-redis.js";
import { ownThreadsCpuMs } from "./lib/process-stats.js";
import { redisCpuMs, serverCommandMicroseconds, serverCommandStats } from "./lib/redis-stats.js";
import { scriptNameOf, scriptNamesBySha } from "./lib/script-names.js";

const [which = "tollgate", runsArgument = "2000", inFlightArgument = "50"] = process.argv.slice(2);
if (!isLoneContender(which)) {
  console.error(`usage: npx tsx bench/cpu-per-run.ts ${loneContenderChoices} [runs] [in flight]`);
  process.exit(2);
}
const runs = Number(runsArgument);
const inFlight = Number(inFlightArgument);
const redis = await startPrivateRedis();
const model = await startModelServer();
const options = { redisUrl: redis.url, modelUrl: model.url, prefix: "cpu", concurrency: inFlight };
const streaming = process.env.BENCH_MODEL_STREAMING;
const contender = await startLoneContender(which, options);

/** `count` runs, `inFlight` at a time. */
const batch = (count: number, tag: string) =>
  withInFlight(count, inFlight, (index) => contender.run(`${tag}-${index}`));

try {
  await batch(600, "warm-up");
  const session = new Session();
  session.connect();
  const cpuProfile = process.env.CPU_PROFILE;
  const heapProfile = process.env.HEAP_PROFILE;
  if (heapProfile) {
    await session.post("HeapProfiler.enable");
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      // HEAP_SURVIVORS=1: only what outlived a young collection (what promotion and full collections cost).
      includeObjectsCollectedByMinorGC: process.env.HEAP_SURVIVORS !== "1",
    });
  }
  if (cpuProfile) {
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 200 });
    await session.post("Profiler.start");
  }
  const scriptStats = process.env.SCRIPT_STATS === "1";
  if (scriptStats) {
    await redis.redis.config("SET", "slowlog-log-slower-than", "0");
    await redis.redis.config("SET", "slowlog-max-len", String(runs * 400));
    await redis.redis.slowlog("RESET");
  }
  const commandsBefore = await serverCommandStats(redis.redis);
  const microsecondsBefore = await serverCommandMicroseconds(redis.redis);
  const redisCpuBefore = await redisCpuMs(redis.redis);
  const threadsBefore = ownThreadsCpuMs();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const allocation = startAllocationCounter();
  await batch(runs, "measured");
  const allocatedKbPerRun = allocation.stop() / 1024 / runs;
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const threadsAfter = ownThreadsCpuMs();
  const commands = difference(await serverCommandStats(redis.redis), commandsBefore);
  const microseconds = difference(await serverCommandMicroseconds(redis.redis), microsecondsBefore);
  const redisCpuMsPerRun = ((await redisCpuMs(redis.redis)) - redisCpuBefore) / runs;
  const slowlog = scriptStats
    ? ((await redis.redis.slowlog("GET", "-1")) as Array<[number, number, number, string[]]>)
    : [];
  if (cpuProfile) writeFileSync(cpuProfile, JSON.stringify((await session.post("Profiler.stop")).profile));
  if (heapProfile)
    writeFileSync(heapProfile, JSON.stringify((await session.post("HeapProfiler.stopSampling")).profile));
  session.disconnect();
  const cpuMsPerRun = (cpu.user + cpu.system) / 1000 / runs;
  console.log(
    `${contender.name}${streaming !== undefined ? ` (streaming ${streaming})` : ""}: ${(runs / seconds).toFixed(0)} runs/s, ${cpuMsPerRun.toFixed(3)} ms of CPU per run, ` +
      `${allocatedKbPerRun.toFixed(0)} KB allocated per run (${runs} runs, ${inFlight} in flight); ` +
      `main thread ${((threadsAfter.main - threadsBefore.main) / runs).toFixed(3)} ms per run, other threads ` +
      `(garbage collection's helpers) ${((threadsAfter.other - threadsBefore.other) / runs).toFixed(3)}`,
  );
  if (process.env.COMMAND_STATS === "1") {
    // The snapshot's own INFO is the bench's.
    delete commands.info;
    delete microseconds.info;
    const sorted = Object.entries(commands).sort(([, a], [, b]) => b - a);
    console.log(
      `Redis commands per run: ${(total(commands) / runs).toFixed(1)}; Redis CPU ${redisCpuMsPerRun.toFixed(3)} ms per run, ` +
        "of which commands' own time (µs per run; a script's includes what it runs):",
    );
    for (const [name, count] of sorted)
      console.log(
        `  ${name.padEnd(28)} ${(count / runs).toFixed(2).padStart(7)}  ${((microseconds[name] ?? 0) / runs).toFixed(1).padStart(7)} µs`,
      );
  }
  if (scriptStats) {
    const names = await scriptNamesBySha();
    const bySha = new Map<string, { calls: number; microseconds: number }>();
    for (const [, , microseconds, command] of slowlog) {
      const verb = String(command[0]).toLowerCase();
      const name = scriptNameOf(verb, command[1], names) ?? verb;
      const entry = bySha.get(name) ?? { calls: 0, microseconds: 0 };
      entry.calls += 1;
      entry.microseconds += microseconds;
      bySha.set(name, entry);
    }
    const sorted = [...bySha].sort(([, a], [, b]) => b.microseconds - a.microseconds);
    console.log("Commands as sent (SLOWLOG, every command): calls and µs per run, most time first");
    for (const [name, { calls, microseconds }] of sorted)
      console.log(
        `  ${name.padEnd(44)} ${(calls / runs).toFixed(2).padStart(7)}  ${(microseconds / runs).toFixed(1).padStart(7)} µs`,
      );
  }
} finally {
  await contender.close();
  await model.stop();
  await redis.stop();
}
process.exit(0);
