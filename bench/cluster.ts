/**
 * `npm run bench:cluster`: Tollgate on a local Redis Cluster (3 masters, 3 replicas, started by
 * scripts/redis-cluster.sh), with 1 and 3 partitions and 1, 2 and 4 `tollgate worker` processes sharing
 * 48 slots, 48 runs in flight (one tool call each, scripted model in its own process), the settings
 * taking turns batch by batch. Then 10,000 runs with 1 and with 3 partitions, and the keys and memory
 * each master holds before and after. Kept out of `npm run bench` (six redis-servers, several minutes). Prints Markdown and writes
 * bench/results/<start time>-cluster.json; `--quick` for small counts.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { availableParallelism, cpus, totalmem } from "node:os";
import { join } from "node:path";
import { GatewayClient } from "../src/producer/index.js";
import { layoutPartitions } from "../src/store/index.js";
import { benchGateway } from "./bench-gateway.js";
import { askTollgate } from "./contenders/tollgate-ask.js";
import { alternate, withInFlight } from "./lib/alternate.js";
import { benchGatewayPath, type IChildService, startCli, startModelServer } from "./lib/child-services.js";
import { ClusterAdmin, type IMasterFigures } from "./lib/cluster-admin.js";
import { startLoadSampler } from "./lib/load-sampler.js";
import { markdownTable } from "./lib/markdown-table.js";
import { median, round } from "./lib/percentiles.js";
import { loadAverage } from "./lib/process-stats.js";
import { writeResults } from "./lib/results-file.js";

const quick = process.argv.includes("--quick");
const totalSlots = 48;
const runsPerBatch = quick ? 200 : 1_000;
const batches = quick ? 1 : 3;
const spreadRuns = quick ? 1_000 : 10_000;
const spreadProcesses = 2;
const script = new URL("../scripts/redis-cluster.sh", import.meta.url).pathname;

const startedAt = new Date();
const loadSampler = await startLoadSampler();
const dir = mkdtempSync("/tmp/tollgate-bench-cluster-");
execFileSync("bash", [script, "start", dir], { stdio: "inherit" });
const nodes = readFileSync(join(dir, "nodes"), "utf8").trim().split(",");
/** Child processes still running: a Ctrl-C or a kill must leave neither them nor six redis-servers behind. */
const running = new Set<IChildService>();
let clusterStopped = false;
function stopCluster(): void {
  if (clusterStopped) return;
  clusterStopped = true;
  execFileSync("bash", [script, "stop", dir], { stdio: "inherit" });
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    for (const child of running) process.kill(child.pid, "SIGKILL");
    stopCluster();
    process.exit(130);
  });
}
/** Warnings of this process and of the workers (their stderr): reported, not dropped. */
const warnings: string[] = [];
process.on("warning", (warning) => warnings.push(`bench: ${warning.name}: ${warning.message}`));

async function started<TService extends IChildService>(service: Promise<TService>): Promise<TService> {
  const child = await service;
  running.add(child);
  return child;
}

async function stopped(children: readonly IChildService[]): Promise<void> {
  await Promise.all(children.map((child) => child.stop()));
  for (const child of children) {
    running.delete(child);
    const lines = child.stderrTail().split("\n");
    for (const line of lines.filter((text) => /Warning/.test(text))) warnings.push(`worker: ${line}`);
  }
}

function workers(prefix: string, partitions: number, processes: number): Promise<IChildService[]> {
  const concurrency = Math.max(1, Math.round(totalSlots / processes / partitions));
  return Promise.all(
    Array.from({ length: processes }, () =>
      started(
        startCli(
          [
            "worker",
            "--gateway",
            benchGatewayPath,
            "--concurrency",
            String(concurrency),
            "--metrics-port",
            "0",
          ],
          {
            TOLLGATE_REDIS_CLUSTER_NODES: nodes.join(","),
            TOLLGATE_PREFIX: prefix,
            TOLLGATE_PARTITIONS: String(partitions),
            TOLLGATE_PREVIOUS_PARTITIONS: String(partitions),
            OPENAI_BASE_URL: model!.url,
            LOG_LEVEL: "info",
          },
          /worker metrics at \/metrics/,
        ),
      ),
    ),
  );
}

function clientFor(prefix: string, partitions: number): GatewayClient {
  return new GatewayClient({
    gateway: benchGateway,
    runtime: { redisClusterNodes: nodes, prefix, partitions, previousPartitions: partitions },
  });
}

/**
 * Runs `drive` against `processes` workers and a client of a deployment, then stops the workers before
 * the client closes: nothing is left pending on a connection that goes away.
 */
async function withDeployment<TResult>(
  prefix: string,
  partitions: number,
  processes: number,
  drive: (client: GatewayClient) => Promise<TResult>,
): Promise<TResult> {
  const fleet = await workers(prefix, partitions, processes);
  const client = clientFor(prefix, partitions);
  try {
    return await drive(client);
  } finally {
    await stopped(fleet);
    await client.close();
  }
}

interface IRateRow {
  partitions: number;
  processes: number;
  concurrencyPerQueue: number;
  runsPerSecondMedian: number;
  runsPerSecondBatches: number[];
  loadAverageAfterBatches: number[];
}

interface ISpreadResult {
  partitions: number;
  runs: number;
  seconds: number;
  runsPerSecond: number;
  prefixes: string[];
  before: IMasterFigures[];
  after: IMasterFigures[];
  loadAverageAfter: number;
}

let model: (IChildService & { url: string }) | undefined;
let admin: ClusterAdmin | undefined;
try {
  model = await started(startModelServer());
  admin = await ClusterAdmin.connect(nodes);
  const machine = {
    cores: availableParallelism(),
    cpu: cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    redis: await admin.redisVersion(),
  };
  console.error(
    `${machine.cores} cores, Node ${machine.node}, Redis ${machine.redis}, load ${loadSampler.summary().atStart}`,
  );

  // The settings take turns, one batch each per turn (a fresh fleet each time): a busy moment of the
  // shared machine then falls on every setting alike, not on whichever ran during it.
  const settings = [1, 3].flatMap((partitions) =>
    [1, 2, 4].map((processes) => ({ name: `p${partitions}-w${processes}`, partitions, processes })),
  );
  const measured = await alternate(settings, { warmupTurns: 0, turns: batches }, async (setting, turn) => {
    await admin!.flush();
    const { partitions, processes } = setting;
    const prefix = `{tgbench-p${partitions}-w${processes}}`;
    const rate = await withDeployment(prefix, partitions, processes, async (client) => {
      await withInFlight(50, totalSlots, (index) => askTollgate(client, `warm-${index}`));
      const begin = performance.now();
      await withInFlight(runsPerBatch, totalSlots, (index) => askTollgate(client, `b${turn}-${index}`));
      return runsPerBatch / ((performance.now() - begin) / 1000);
    });
    const load = await loadAverage();
    console.error(
      `turn ${turn}, ${partitions} partition(s), ${processes} worker(s): ${round(rate, 0)} runs/s`,
    );
    return { rate, load };
  });
  const rates: IRateRow[] = settings.map(({ name, partitions, processes }) => {
    const batchesOf = measured.get(name)!;
    return {
      partitions,
      processes,
      concurrencyPerQueue: Math.max(1, Math.round(totalSlots / processes / partitions)),
      runsPerSecondMedian: round(median(batchesOf.map((batch) => batch.rate)), 0),
      runsPerSecondBatches: batchesOf.map((batch) => round(batch.rate, 0)),
      loadAverageAfterBatches: batchesOf.map((batch) => batch.load),
    };
  });
  const ratesLoad = loadSampler.summary();

  const spreads: ISpreadResult[] = [];
  for (const partitions of [1, 3]) {
    await admin.flush();
    const prefix = `{tgbench-spread-p${partitions}}`;
    // The configured prefix holds the deployment-wide keys (limits, usage); the partitions' the rest.
    const prefixes = [
      ...new Set([prefix, ...layoutPartitions(prefix, partitions).map((partition) => partition.prefix)]),
    ];
    const before = await admin.figures(prefixes);
    const seconds = await withDeployment(prefix, partitions, spreadProcesses, async (client) => {
      const begin = performance.now();
      await withInFlight(spreadRuns, totalSlots, (index) => askTollgate(client, `spread-${index}`));
      return (performance.now() - begin) / 1000;
    });
    spreads.push({
      partitions,
      runs: spreadRuns,
      seconds: round(seconds, 1),
      runsPerSecond: round(spreadRuns / seconds, 0),
      prefixes,
      before,
      after: await admin.figures(prefixes),
      loadAverageAfter: await loadAverage(),
    });
    console.error(`spread, partitions ${partitions}: ${spreadRuns} runs in ${round(seconds, 1)} s`);
  }

  const seconds = round((Date.now() - startedAt.getTime()) / 1000, 0);
  const load = loadSampler.summary();
  console.log(markdownReport(machine, rates, ratesLoad, spreads, seconds, load));
  if (warnings.length > 0) console.log(`Warnings:\n${warnings.map((line) => `- ${line}`).join("\n")}\n`);
  const file = await writeResults(
    {
      startedAt: startedAt.toISOString(),
      quick,
      seconds,
      machine,
      load,
      ratesLoad,
      settings: { totalSlots, inFlight: totalSlots, runsPerBatch, batches, spreadRuns, spreadProcesses },
      rates,
      spreads,
      warnings,
    },
    "-cluster",
  );
  console.log(`Results: ${file}`);
} finally {
  loadSampler.stop();
  // In order: the admin connection, then the model, then the cluster under them.
  await admin?.close();
  if (model) await stopped([model]);
  stopCluster();
}
process.exit(0);

function megabytes(bytes: number): number {
  return round(bytes / 1_048_576, 1);
}

function markdownReport(
  machine: { cores: number; cpu: string; memoryGiB: number; node: string; redis: string },
  rates: readonly IRateRow[],
  ratesLoad: { mean: number; max: number },
  spreads: readonly ISpreadResult[],
  seconds: number,
  load: { atStart: number; mean: number; max: number },
): string {
  const lines = [
    `### Partitions on a local Redis Cluster (\`npm run bench:cluster${quick ? " -- --quick" : ""}\`, ${startedAt.toISOString()})`,
    "",
    `${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB, Node ${machine.node}, Redis ${machine.redis};`,
    `six redis-servers, the scripted model, the caller and the workers on those cores. Total ${seconds} s;`,
    `1-minute load average at start ${load.atStart}, during the run mean ${load.mean}, max ${load.max}.`,
    "",
    `Runs per second: ${batches} batch(es) of ${runsPerBatch} one-tool runs per row, each on a fresh fleet after`,
    `50 warm-up runs, the rows taking turns; ${totalSlots} in flight, ${totalSlots} worker slots in total (load`,
    `during these rows: mean ${ratesLoad.mean}, max ${ratesLoad.max}).`,
    "",
    markdownTable(
      ["partitions", "worker processes", "runs/s (median)", "batches", "load after each"],
      rates.map((row) => [
        row.partitions,
        row.processes,
        row.runsPerSecondMedian,
        row.runsPerSecondBatches.join(", "),
        row.loadAverageAfterBatches.join(", "),
      ]),
    ),
    "",
  ];
  for (const spread of spreads) {
    lines.push(
      `Keys and memory per master, ${spread.partitions} partition(s): ${spread.runs.toLocaleString("en")} runs ` +
        `(${spreadProcesses} worker processes) took ${spread.seconds} s (${spread.runsPerSecond} runs/s).`,
      "",
      markdownTable(
        [
          "master",
          "slots",
          "keys of the deployment",
          "prefixes with keys",
          "used memory before MB",
          "after MB",
        ],
        spread.after.map((after) => {
          const before = spread.before.find((figures) => figures.master === after.master);
          const held = Object.entries(after.keysByPrefix).filter(([, count]) => count > 0);
          return [
            after.master,
            after.slots,
            held.reduce((sum, [, count]) => sum + count, 0),
            held.map(([prefix, count]) => `${prefix} (${count})`).join(", ") || "none",
            megabytes(before?.usedMemoryBytes ?? Number.NaN),
            megabytes(after.usedMemoryBytes),
          ];
        }),
      ),
      "",
    );
  }
  return lines.join("\n");
}
