import { alternate, withInFlight } from "../lib/alternate.js";
import type { IBenchEnvironment } from "../lib/environment.js";
import { markdownTable } from "../lib/markdown-table.js";
import { median, round } from "../lib/percentiles.js";
import { type IRunCost, measureRunCost } from "../lib/run-cost.js";
import { type IScenarioResult, sized } from "../lib/scenario.js";

export const throughputInFlight = 50;

export interface IThroughputFigures extends IRunCost {
  runsPerSecond: number;
}

/**
 * Scenario 3's throughput and cost: batches of runs with 50 in flight per contender, alternating batch by
 * batch (order rotated); medians over the batches of runs/s, CPU per run (process and Redis) and Redis
 * commands per run.
 */
export async function throughput(environment: IBenchEnvironment): Promise<IScenarioResult> {
  const { openAiLoop, floor, floorProcess, floorRecords, tollgateInProcess, tollgateCli } =
    environment.contenders;
  const contenders = [openAiLoop, floor, floorProcess, floorRecords, tollgateInProcess, tollgateCli];
  const runs = sized(environment, 400, 100);
  const batches = sized(environment, 3, 2);
  const measured = await alternate(
    contenders,
    { warmupTurns: 1, turns: batches },
    async (contender, turn) => {
      let seconds = 0;
      const cost = await measureRunCost(environment, contender.childPids, runs, async () => {
        const started = performance.now();
        await withInFlight(runs, throughputInFlight, (index) => contender.run(`throughput-${turn}-${index}`));
        seconds = (performance.now() - started) / 1000;
      });
      return { ...cost, runsPerSecond: runs / seconds };
    },
  );
  const figures: Record<string, IThroughputFigures> = {};
  for (const [name, batchFigures] of measured) {
    const medianOf = (key: keyof IThroughputFigures) =>
      round(median(batchFigures.map((figure) => figure[key])), 2);
    figures[name] = {
      runsPerSecond: round(medianOf("runsPerSecond"), 0),
      processCpuMs: medianOf("processCpuMs"),
      redisCpuMs: medianOf("redisCpuMs"),
      serverCommands: medianOf("serverCommands"),
      serverLuaCalls: medianOf("serverLuaCalls"),
      clientCommands: medianOf("clientCommands"),
      clientLuaCalls: medianOf("clientLuaCalls"),
      clientRoundTrips: medianOf("clientRoundTrips"),
      allocatedKb: round(medianOf("allocatedKb"), 0),
    };
  }
  const rows = contenders.map((contender) => {
    const figure = figures[contender.name]!;
    const child = contender.childPids.length > 0;
    const callerOnly = (value: number) => (child ? `${value} (caller only)` : value);
    return [
      contender.name,
      figure.runsPerSecond,
      figure.processCpuMs,
      figure.redisCpuMs,
      figure.serverCommands,
      figure.serverLuaCalls,
      callerOnly(figure.clientCommands),
      callerOnly(figure.clientLuaCalls),
      callerOnly(figure.clientRoundTrips),
      callerOnly(figure.allocatedKb),
    ];
  });
  return {
    title: `Throughput and cost at ${throughputInFlight} in flight`,
    markdown: [
      `${batches} batches of ${runs} one-tool-call runs per contender (after one warm-up batch), ${throughputInFlight}`,
      "in flight, workers at concurrency 50, alternating batch by batch; medians over the batches. Process CPU:",
      "the bench process (caller, in-process workers, other contenders idle) plus the contender's worker",
      "process; the scripted model's process is nobody's. Redis: INFO cpu and commandstats deltas (commands",
      "inside scripts included); client commands: counted in this process's ioredis, no MONITOR; client round",
      "trips: this process's socket writes to Redis (a pipeline or MULTI … EXEC is one); KB allocated: this",
      "process's V8 heap (the growth plus what each garbage collection freed, from V8's GCProfiler). The floor",
      "runs twice: its workers in the bench process (compared with Tollgate's in-process worker) and in a",
      "worker process of their own (compared with the CLI worker, as in production). The floor with records",
      "keeps Tollgate's records on raw BullMQ (bench/contenders/floor-with-records.ts), in the bench process.",
      "",
      markdownTable(
        [
          "contender",
          "runs/s",
          "process CPU ms/run",
          "Redis CPU ms/run",
          "Redis commands/run",
          "Lua calls/run",
          "client commands/run",
          "client Lua calls/run",
          "client round trips/run",
          "KB allocated/run",
        ],
        rows,
      ),
    ].join("\n"),
    data: { runs, batches, inFlight: throughputInFlight, figures },
  };
}
