/**
 * `npx tsx bench/gc-per-run.ts <floor|floor-records|tollgate|tollgate-compiled> [runs] [in flight]`: what a
 * contender's runs leave to the garbage collector, alone in its process (as bench/cpu-per-run.ts), on a
 * private redis-server and scripted model, after a warm-up of 600 runs.
 *
 * **Promoted per run**: bytes the young-generation collections copied to the old generation during
 * `runs` runs (V8's `--trace-gc-nvp` lines, the `promoted=` of each scavenge), divided by the runs. An
 * object promoted has outlived two young collections; it then costs a copy, a share of every full
 * collection's marking (on the helper threads) and its compaction. What a run keeps alive for its whole
 * length at 50 in flight is promoted; what dies within a turn or two is not. Where it comes from:
 * `HEAP_SURVIVORS=1 HEAP_PROFILE=<file> npx tsx bench/cpu-per-run.ts ...`.
 *
 * A diagnostic for issue 26 (why Tollgate's collections cost more than the floor's), not part of
 * `npm run bench`. The process re-runs itself under `node --trace-gc-nvp`. `BENCH_MODEL_STREAMING=off` as
 * for bench/cpu-per-run.ts.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { withInFlight } from "./lib/alternate.js";
import { startModelServer } from "./lib/child-services.js";
import {
  isLoneContender,
  loneContenderChoices,
  startLoneContender,
  type TLoneContender,
} from "./lib/lone-contender.js";
import { startPrivateRedis } from "./lib/private-redis.js";

const [whichArgument = "tollgate", runsArgument = "2000", inFlightArgument = "50"] = process.argv.slice(2);
if (!isLoneContender(whichArgument)) {
  console.error(`usage: npx tsx bench/gc-per-run.ts ${loneContenderChoices} [runs] [in flight]`);
  process.exit(2);
}
/** The checked name, for `measure` below: a function body does not see the check's narrowing. */
const which: TLoneContender = whichArgument;
const runs = Number(runsArgument);
const inFlight = Number(inFlightArgument);
/** Printed by the measuring child around its first batch: the scavenges between them are counted. */
const markers = { start: "gc-per-run: measured batch starts", end: "gc-per-run: measured batch ends" };

if (process.env.GC_PER_RUN_CHILD === "1") {
  await measure();
  // As bench/cpu-per-run.ts: the contenders' closed clients may still hold a timer or a socket.
  process.exit(0);
} else await parent();

/** Runs this file again under the GC trace and sums what its measured batch promoted. */
async function parent(): Promise<void> {
  const child = spawn(
    process.execPath,
    [
      "--trace-gc-nvp",
      "--expose-gc",
      "--import",
      "tsx",
      fileURLToPath(import.meta.url),
      ...process.argv.slice(2),
    ],
    { env: { ...process.env, GC_PER_RUN_CHILD: "1" }, stdio: ["ignore", "pipe", "inherit"] },
  );
  let buffered = "";
  let measuring = false;
  let promoted = 0;
  let scavenges = 0;
  let fullCollections = 0;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (text: string) => {
    buffered += text;
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf("\n");
      if (line.includes(markers.start)) measuring = true;
      else if (line.includes(markers.end)) measuring = false;
      else if (!line.includes("gc=")) console.log(line);
      else if (measuring) {
        const kind = / gc=(\S+)/.exec(line)?.[1];
        if (kind === "s") {
          scavenges += 1;
          promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
        } else if (kind === "mc" || kind === "ms") fullCollections += 1;
      }
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  if (code !== 0) process.exit(code ?? 1);
  console.log(
    `promoted ${(promoted / 1024 / runs).toFixed(1)} KB per run (${scavenges} young collections, ` +
      `${fullCollections} full ones, ${runs} runs, ${inFlight} in flight)`,
  );
}

/** The child: a warm-up, then the measured batch between the markers. */
async function measure(): Promise<void> {
  const redis = await startPrivateRedis();
  const model = await startModelServer();
  const options = { redisUrl: redis.url, modelUrl: model.url, prefix: "gc", concurrency: inFlight };
  const contender = await startLoneContender(which, options);
  try {
    await withInFlight(600, inFlight, (index) => contender.run(`warm-up-${index}`));
    console.log(markers.start);
    await withInFlight(runs, inFlight, (index) => contender.run(`measured-${index}`));
    console.log(markers.end);
  } finally {
    await contender.close();
    await model.stop();
    await redis.stop();
  }
}
