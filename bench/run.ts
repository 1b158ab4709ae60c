/**
 * Tollgate's benchmarks: `npm run bench` (all scenarios), `npm run bench -- --quick` (small counts, for
 * development and a smoke test), `npm run bench -- <scenario>...` for some (`--parked 10000,100000`: the
 * parked-memory scenario's levels; `--steps 1,8,32,100`: the long-run scenario's step counts). One
 * private redis-server and one scripted model process serve every scenario; each scenario alternates its
 * contenders in this one process run. Prints Markdown and writes bench/results/<date>.json.
 */
import { existsSync } from "node:fs";
import { availableParallelism, cpus, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { startEnvironment } from "./lib/environment.js";
import { startLoadSampler } from "./lib/load-sampler.js";
import { redisVersion } from "./lib/redis-stats.js";
import { writeResults } from "./lib/results-file.js";
import type { IScenarioResult, TScenario } from "./lib/scenario.js";
import { checkTargets, targetsTable } from "./lib/targets.js";
import { approvalListing } from "./scenarios/approval-listing.js";
import { approvals } from "./scenarios/approvals.js";
import { crashRecovery } from "./scenarios/crash-recovery.js";
import { fanOut } from "./scenarios/fan-out.js";
import { isolation } from "./scenarios/isolation.js";
import { latency } from "./scenarios/latency.js";
import { longRun } from "./scenarios/long-run.js";
import { parkedMemory } from "./scenarios/parked-memory.js";
import { scale } from "./scenarios/scale.js";
import { streaming } from "./scenarios/streaming.js";
import { throughput } from "./scenarios/throughput.js";
import { workerFootprint } from "./scenarios/worker-footprint.js";

/** In the order they run: the memory scenario last, since it leaves 100,000 parked runs in Redis. */
const scenarios: Record<string, TScenario> = {
  latency,
  throughput,
  "fan-out": fanOut,
  isolation,
  approvals,
  "worker-footprint": workerFootprint,
  scale,
  "approval-listing": approvalListing,
  streaming,
  "long-run": longRun,
  "parked-memory": parkedMemory,
};

/** Run only when named. */
const optionalScenarios: Record<string, TScenario> = { "crash-recovery": crashRecovery };
const known = { ...scenarios, ...optionalScenarios };

const args = process.argv.slice(2);
const quick = args.includes("--quick");
/** A flag's comma-separated counts (`--parked 10000,100000`), smallest first; undefined when not given. */
function countsFlag(
  flag: string,
  example: string,
  valid: (counts: number[]) => boolean,
): number[] | undefined {
  const index = args.indexOf(flag);
  if (index < 0) return undefined;
  const counts = (args[index + 1] ?? "").split(",").map(Number);
  const ascending = counts.every((count, at) => Number.isInteger(count) && count > (counts[at - 1] ?? 0));
  if (!ascending || !valid(counts)) {
    console.error(`${flag} takes a comma-separated list of counts, smallest first: ${flag} ${example}`);
    process.exit(2);
  }
  return counts;
}
const parkedLevels = countsFlag("--parked", "10000,100000", () => true);
// The long-run scenario's step counts: per added step is measured from the run of 1 step.
const stepCounts = countsFlag("--steps", "1,8,32,100", (counts) => counts[0] === 1 && counts.length >= 2);
const flagValues = new Set(
  ["--parked", "--steps"]
    .map((flag) => args.indexOf(flag))
    .filter((index) => index >= 0)
    .map((index) => index + 1),
);
const chosen = args.filter((arg, index) => !arg.startsWith("-") && !flagValues.has(index));
const unknown = chosen.filter((name) => !(name in known));
if (unknown.length > 0) {
  console.error(`unknown scenario ${unknown.join(", ")}; known: ${Object.keys(known).join(", ")}`);
  process.exit(2);
}
const names = chosen.length > 0 ? chosen : Object.keys(scenarios);

const startedAt = new Date();
const loadSampler = await startLoadSampler();
if (existsSync(fileURLToPath(new URL("../dist/cli/main.js", import.meta.url)))) {
  // bin/tollgate.js prefers dist/: a stale build would benchmark old code in the CLI worker contenders.
  console.warn(
    "dist/ exists: the CLI worker contenders run the compiled dist/, not src/; rebuild or delete it.",
  );
}
const environment = await startEnvironment({ quick, parkedLevels, stepCounts });
const machine = {
  cores: availableParallelism(),
  cpu: cpus()[0]?.model ?? "unknown",
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  redis: await redisVersion(environment.redis.redis),
};
console.log(`# Tollgate benchmarks${quick ? " (--quick)" : ""}\n`);
console.log(
  `${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB, Node ${machine.node}, Redis ${machine.redis}`,
);
console.log(`${startedAt.toISOString()}, load average at start ${loadSampler.summary().atStart}\n`);
const results: Record<string, IScenarioResult> = {};
try {
  for (const name of names) {
    const scenarioStarted = performance.now();
    const result = await known[name]!(environment);
    results[name] = result;
    const seconds = ((performance.now() - scenarioStarted) / 1000).toFixed(1);
    console.log(`## ${result.title}\n\n${result.markdown}\n\n_(${name}: ${seconds} s)_\n`);
  }
  const targets = checkTargets(environment, results);
  console.log(`## Targets (ratios measured in this run)\n\n${targetsTable(targets)}\n`);
  const seconds = (Date.now() - startedAt.getTime()) / 1000;
  const load = loadSampler.summary();
  console.log(
    `Total ${seconds.toFixed(0)} s; 1-minute load average during the run: mean ${load.mean}, max ${load.max}.`,
  );
  const file = await writeResults({
    startedAt: startedAt.toISOString(),
    quick,
    seconds,
    machine,
    load,
    targets,
    results,
  });
  console.log(`Results: ${file}`);
} finally {
  loadSampler.stop();
  await environment.close();
}
process.exit(0);
