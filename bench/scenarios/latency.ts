import { alternate } from "../lib/alternate.js";
import type { IBenchEnvironment } from "../lib/environment.js";
import { markdownTable } from "../lib/markdown-table.js";
import { type ILatencySummary, round, summarize } from "../lib/percentiles.js";
import { runsAtOneInFlight } from "../lib/runs-at-one.js";
import { type IScenarioResult, sized } from "../lib/scenario.js";

/**
 * Scenarios 1–3 at 1 in flight: the one-tool-call run on every contender, alternating run by run with
 * the order rotated. "Added" is over the plain openai loop, the least any design can take. Then each
 * contender's client round trips and the bytes Redis received per run, its runs back to back.
 */
export async function latency(environment: IBenchEnvironment): Promise<IScenarioResult> {
  const { openAiLoop, aiSdk, floor, floorProcess, floorRecords, hop, tollgateInProcess, tollgateCli } =
    environment.contenders;
  const contenders = [
    openAiLoop,
    aiSdk,
    floor,
    floorProcess,
    floorRecords,
    hop,
    tollgateInProcess,
    tollgateCli,
  ];
  const turns = sized(environment, 400, 30);
  const samples = await alternate(
    contenders,
    { warmupTurns: sized(environment, 30, 5), turns },
    async (contender, turn) => {
      const started = performance.now();
      await contender.run(`latency-${turn}`);
      return performance.now() - started;
    },
  );
  const summaries: Record<string, ILatencySummary> = {};
  for (const [name, values] of samples) summaries[name] = summarize(values);
  const roundTrips: Record<string, number> = {};
  const redisInputKb: Record<string, number> = {};
  for (const contender of [floor, floorProcess, floorRecords, tollgateInProcess, tollgateCli]) {
    const figures = await runsAtOneInFlight(environment, contender, sized(environment, 100, 20));
    roundTrips[contender.name] = figures.roundTrips;
    redisInputKb[contender.name] = figures.redisInputKb;
  }
  const loop = summaries[openAiLoop.name]!;
  const rows = contenders.map((contender) => {
    const summary = summaries[contender.name]!;
    const addedP50 = contender === hop ? undefined : round(summary.p50 - loop.p50);
    const addedP99 = contender === hop ? undefined : round(summary.p99 - loop.p99);
    const trips = roundTrips[contender.name];
    const tripsCell =
      trips === undefined ? undefined : contender.childPids.length > 0 ? `${trips} (caller only)` : trips;
    return [
      contender.name,
      summary.p50,
      summary.p99,
      summary.mean,
      addedP50,
      addedP99,
      tripsCell,
      redisInputKb[contender.name],
    ];
  });
  return {
    title: "Latency at 1 in flight (floor, baseline, Tollgate)",
    markdown: [
      `${turns} runs per contender after a warm-up, alternating run by run (order rotated each turn). Each run:`,
      "model call → one `echo` tool call → model call → answer, against the scripted model (a process of its",
      "own). Milliseconds, caller's view; added = over the openai loop's same percentile. Round trips: this",
      "process's socket writes to Redis per run (a pipeline or MULTI … EXEC is one), each contender's runs",
      "back to back after the alternation; a contender with a worker process shows its caller's only. KB",
      "received: what Redis received per run in those runs, from every client (INFO stats' total_net_input_bytes).",
      "",
      markdownTable(
        [
          "contender",
          "p50",
          "p99",
          "mean",
          "added p50",
          "added p99",
          "Redis round trips/run",
          "KB Redis received/run",
        ],
        rows,
      ),
    ].join("\n"),
    data: { turns, summaries, roundTrips, redisInputKb },
  };
}
