/**
 * `npm run bench:cluster`: Tollgate on a local Redis Cluster (3 masters, 3 replicas, started by
 * scripts/redis-cluster.sh), with 1 and 3 partitions and 1, 2 and 4 `tollgate worker` processes sharing
 * 48 slots, 48 runs in flight (one tool call each, scripted model in its own process). Then 10,000 runs
 * with 1 and with 3 partitions, and the keys and memory each master holds. Kept out of `npm run bench`
 * (a cluster of six redis-servers, and about ten minutes). Prints Markdown; `--quick` for small counts.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { availableParallelism, cpus } from "node:os";
import { join } from "node:path";
import { Cluster, Redis } from "ioredis";
import { GatewayClient } from "../src/producer/index.js";
import { parseHostPort } from "../src/store/index.js";
import { benchGateway } from "./bench-gateway.js";
import { askTollgate } from "./contenders/tollgate-ask.js";
import { withInFlight } from "./lib/alternate.js";
import { benchGatewayPath, type IChildService, startCli, startModelServer } from "./lib/child-services.js";
import { markdownTable } from "./lib/markdown-table.js";
import { median, round } from "./lib/percentiles.js";

const quick = process.argv.includes("--quick");
const totalSlots = 48;
const runsPerBatch = quick ? 200 : 1_000;
const batches = quick ? 1 : 3;
const spreadRuns = quick ? 1_000 : 10_000;
const script = new URL("../scripts/redis-cluster.sh", import.meta.url).pathname;

const dir = mkdtempSync("/tmp/tollgate-bench-cluster-");
execFileSync("bash", [script, "start", dir], { stdio: "inherit" });
const nodes = (await import("node:fs")).readFileSync(join(dir, "nodes"), "utf8").trim().split(",");
const model = await startModelServer();

async function workers(prefix: string, partitions: number, processes: number): Promise<IChildService[]> {
  const concurrency = Math.max(1, Math.round(totalSlots / processes / partitions));
  return Promise.all(
    Array.from({ length: processes }, () =>
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
          OPENAI_BASE_URL: model.url,
          LOG_LEVEL: "info",
        },
        /worker metrics at \/metrics/,
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

async function perMaster(): Promise<Array<{ node: string; keys: number; usedMemoryMb: number }>> {
  const admin = new Cluster(nodes.map(parseHostPort));
  try {
    await new Promise((resolve) => admin.once("ready", resolve));
    return Promise.all(
      admin.nodes("master").map(async (node: Redis) => {
        const memory = /used_memory:(\d+)/.exec(await node.info("memory"))?.[1] ?? "0";
        return {
          node: `${node.options.host}:${node.options.port}`,
          keys: await node.dbsize(),
          usedMemoryMb: round(Number(memory) / 1_048_576, 1),
        };
      }),
    );
  } finally {
    admin.disconnect();
  }
}

async function flushMasters(): Promise<void> {
  for (const address of nodes) {
    const node = new Redis({ ...parseHostPort(address), maxRetriesPerRequest: 1 });
    await node.flushall().catch(() => undefined); // replicas refuse: their master's flush reaches them
    node.disconnect();
  }
}

const output: string[] = [];
try {
  const rows: Array<Array<string | number>> = [];
  for (const partitions of [1, 3]) {
    for (const processes of [1, 2, 4]) {
      const prefix = `{tgbench-p${partitions}-w${processes}}`;
      const fleet = await workers(prefix, partitions, processes);
      const client = clientFor(prefix, partitions);
      try {
        await withInFlight(50, totalSlots, (index) => askTollgate(client, `warm-${index}`));
        const rates: number[] = [];
        for (let batch = 0; batch < batches; batch++) {
          const started = performance.now();
          await withInFlight(runsPerBatch, totalSlots, (index) => askTollgate(client, `b${batch}-${index}`));
          rates.push(runsPerBatch / ((performance.now() - started) / 1000));
        }
        rows.push([
          partitions,
          processes,
          round(median(rates), 0),
          rates.map((rate) => round(rate, 0)).join(", "),
        ]);
        console.error(`partitions ${partitions}, ${processes} worker(s): ${rows.at(-1)![2]} runs/s`);
      } finally {
        await Promise.all(fleet.map((worker) => worker.stop()));
        await client.close();
      }
      await flushMasters();
    }
  }
  output.push(
    "### Runs per second on the local cluster",
    "",
    `${availableParallelism()} cores (${cpus()[0]?.model ?? "unknown"}) for everything: six redis-servers, the`,
    `scripted model, the caller and the workers. ${batches} batch(es) of ${runsPerBatch} runs (one tool call`,
    `each) per setting after 50 warm-up runs, ${totalSlots} in flight, ${totalSlots} worker slots in total.`,
    "",
    markdownTable(["partitions", "worker processes", "runs/s (median)", "batches"], rows),
    "",
  );

  for (const partitions of [1, 3]) {
    await flushMasters();
    const prefix = `{tgbench-spread-p${partitions}}`;
    const fleet = await workers(prefix, partitions, 2);
    const client = clientFor(prefix, partitions);
    try {
      await withInFlight(spreadRuns, totalSlots, (index) => askTollgate(client, `spread-${index}`));
    } finally {
      await Promise.all(fleet.map((worker) => worker.stop()));
      await client.close();
    }
    const masters = await perMaster();
    output.push(
      `### Keys and memory per master after ${spreadRuns.toLocaleString("en")} runs, ${partitions} partition(s)`,
      "",
      markdownTable(
        ["master", "keys", "used memory MB"],
        masters.map((master) => [master.node, master.keys, master.usedMemoryMb]),
      ),
      "",
    );
  }
  console.log(output.join("\n"));
} finally {
  await model.stop();
  execFileSync("bash", [script, "stop", dir], { stdio: "inherit" });
}
