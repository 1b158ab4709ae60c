import pino from "pino";
import type { TToolIsolation } from "../../src/contracts/index.js";
import { GatewayClient } from "../../src/producer/index.js";
import { startWorker } from "../../src/workers/index.js";
import { echoToolByIsolation, isolationGateway } from "../isolation-gateway.js";
import { alternate, withInFlight } from "../lib/alternate.js";
import type { IBenchEnvironment } from "../lib/environment.js";
import { markdownTable } from "../lib/markdown-table.js";
import { type ILatencySummary, median, round, summarize } from "../lib/percentiles.js";
import { measureRunCost } from "../lib/run-cost.js";
import { type IScenarioResult, sized } from "../lib/scenario.js";
import { toolCallScript } from "../lib/scripts.js";

/** Runs in flight in the throughput part, and the worker's concurrency (so the pools' size too). */
const inFlight = 8;

interface IIsolationContender {
  name: string;
  isolation: TToolIsolation;
  run(tag: string): Promise<void>;
}

/**
 * Issue 10's cost of tool isolation: the one-tool-call run with its `echo` tool inline (the worker's event
 * loop), in a pool of worker threads, and in a pool of child processes. One in-process worker serves the
 * three (its pools warmed before the first run), and the runs alternate mode by mode. Latency at 1 in
 * flight, then runs/s and the bench process's CPU per run (worker, pools' threads; child processes not
 * included) at 8 in flight: the pools hold one thread or process per slot of the worker's concurrency,
 * so 8 keeps 8 child processes beside everything else on the machine.
 */
export async function isolation(environment: IBenchEnvironment): Promise<IScenarioResult> {
  const runtime = { redisUrl: environment.redis.url, prefix: "tg-isolation" };
  const worker = await startWorker({
    gateway: isolationGateway,
    runtime,
    concurrency: inFlight,
    model: { baseURL: environment.model.url, maxRetries: 0 },
    logger: pino({ level: "silent" }),
    handleSignals: false,
  });
  const client = new GatewayClient({ gateway: isolationGateway, runtime });
  const contenders: IIsolationContender[] = (["inline", "thread", "process"] as const).map((mode) => ({
    name: `tool ${mode}`,
    isolation: mode,
    async run(tag) {
      const response = await client.ask({
        input: toolCallScript(tag, 1, echoToolByIsolation[mode]),
        userContext: { userId: "bench" },
      });
      if (response.status !== "completed")
        throw new Error(`isolation ${mode}: the run ended ${response.status}: ${JSON.stringify(response)}`);
    },
  }));
  try {
    const turns = sized(environment, 300, 20);
    const latencies = await alternate(
      contenders,
      { warmupTurns: sized(environment, 20, 3), turns },
      async (contender, turn) => {
        const started = performance.now();
        await contender.run(`isolation-latency-${turn}`);
        return performance.now() - started;
      },
    );
    const runs = sized(environment, 200, 40);
    const batches = sized(environment, 3, 1);
    // A first batch warms every slot of each pool: a cold child process would be measured loading.
    const throughputs = await alternate(
      contenders,
      { warmupTurns: 1, turns: batches },
      async (contender, turn) => {
        let seconds = 0;
        const cost = await measureRunCost(environment, [], runs, async () => {
          const started = performance.now();
          await withInFlight(runs, inFlight, (index) => contender.run(`isolation-${turn}-${index}`));
          seconds = (performance.now() - started) / 1000;
        });
        return { runsPerSecond: runs / seconds, processCpuMs: cost.processCpuMs };
      },
    );
    const summaries: Record<string, ILatencySummary> = {};
    for (const [name, values] of latencies) summaries[name] = summarize(values);
    const inline = summaries[contenders[0]!.name]!;
    const figures = contenders.map((contender) => {
      const summary = summaries[contender.name]!;
      const batchFigures = throughputs.get(contender.name)!;
      return {
        mode: contender.isolation,
        p50: summary.p50,
        p99: summary.p99,
        addedP50: round(summary.p50 - inline.p50),
        addedP99: round(summary.p99 - inline.p99),
        runsPerSecond: round(median(batchFigures.map((figure) => figure.runsPerSecond)), 0),
        processCpuMs: round(median(batchFigures.map((figure) => figure.processCpuMs)), 2),
      };
    });
    return {
      title: "Tool isolation: inline, worker threads, child processes",
      markdown: [
        `The one-tool-call run with its \`echo\` tool in each isolation mode, one in-process worker serving`,
        `the three (concurrency ${inFlight}, pools of ${inFlight}). Latency: ${turns} runs per mode at 1 in flight,`,
        `alternating, milliseconds; added = over inline's same percentile. Throughput: ${batches} batch(es) of`,
        `${runs} runs per mode at ${inFlight} in flight after a warm-up batch, medians; CPU is this process's`,
        "(worker and thread pool), so a child process's own CPU is not in it.",
        "",
        markdownTable(
          ["isolation", "p50", "p99", "added p50", "added p99", "runs/s", "process CPU ms/run"],
          figures.map((figure) => [
            figure.mode,
            figure.p50,
            figure.p99,
            figure.addedP50,
            figure.addedP99,
            figure.runsPerSecond,
            figure.processCpuMs,
          ]),
        ),
      ].join("\n"),
      data: { turns, runs, batches, inFlight, figures },
    };
  } finally {
    await worker.close();
    await client.close();
  }
}
