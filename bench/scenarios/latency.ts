import { alternate } from "../lib/alternate.js";
import type { IBenchEnvironment } from "../lib/environment.js";
import { markdownTable } from "../lib/markdown-table.js";
import { type ILatencySummary, round, summarize } from "../lib/percentiles.js";
import { type IScenarioResult, sized } from "../lib/scenario.js";

/**
 * Scenarios 1–3 at 1 in flight: the one-tool-call run on every contender, alternating run by run with
 * the order rotated. "Added" is over the plain openai loop, the least any design can take.
 */
export async function latency(environment: IBenchEnvironment): Promise<IScenarioResult> {
  const { openAiLoop, aiSdk, floor, hop, tollgateInProcess, tollgateCli } = environment.contenders;
  const contenders = [openAiLoop, aiSdk, floor, hop, tollgateInProcess, tollgateCli];
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
  const loop = summaries[openAiLoop.name]!;
  const rows = contenders.map((contender) => {
    const summary = summaries[contender.name]!;
    const addedP50 = contender === hop ? undefined : round(summary.p50 - loop.p50);
    const addedP99 = contender === hop ? undefined : round(summary.p99 - loop.p99);
    return [contender.name, summary.p50, summary.p99, summary.mean, addedP50, addedP99];
  });
  return {
    title: "Latency at 1 in flight (floor, baseline, Tollgate)",
    markdown: [
      `${turns} runs per contender after a warm-up, alternating run by run (order rotated each turn). Each run:`,
      "model call → one `echo` tool call → model call → answer, against the scripted model (a process of its",
      "own). Milliseconds, caller's view; added = over the openai loop's same percentile.",
      "",
      markdownTable(["contender", "p50", "p99", "mean", "added p50", "added p99"], rows),
    ].join("\n"),
    data: { turns, summaries },
  };
}
