import { alternate } from "../lib/alternate.js";
import type { IBenchEnvironment } from "../lib/environment.js";
import { markdownTable } from "../lib/markdown-table.js";
import { type ILatencySummary, round, summarize } from "../lib/percentiles.js";
import { type IScenarioResult, sized } from "../lib/scenario.js";

const fanOuts = [1, 8, 32];

/**
 * Scenario 4: one step with 1, 8 or 32 parallel tool calls. The clock runs over the whole run (model
 * reply → all results back → answer); the step's own cost is what a contender adds over the openai loop,
 * whose tools run in one Promise.all.
 */
export async function fanOut(environment: IBenchEnvironment): Promise<IScenarioResult> {
  const { openAiLoop, floor, tollgateInProcess } = environment.contenders;
  const contenders = [openAiLoop, floor, tollgateInProcess];
  const turns = sized(environment, 100, 10);
  const rows: Array<Array<string | number | undefined>> = [];
  const data: Record<number, Record<string, ILatencySummary>> = {};
  for (const calls of fanOuts) {
    const samples = await alternate(
      contenders,
      { warmupTurns: sized(environment, 10, 2), turns },
      async (contender, turn) => {
        const started = performance.now();
        await contender.run(`fan-${calls}-${turn}`, calls);
        return performance.now() - started;
      },
    );
    const summaries: Record<string, ILatencySummary> = {};
    for (const [name, values] of samples) summaries[name] = summarize(values);
    data[calls] = summaries;
    const loop = summaries[openAiLoop.name]!;
    for (const contender of contenders) {
      const summary = summaries[contender.name]!;
      rows.push([
        calls,
        contender.name,
        summary.p50,
        summary.p99,
        round(summary.p50 - loop.p50),
        round(summary.p99 - loop.p99),
      ]);
    }
  }
  return {
    title: "Fan-out: parallel tool calls in one step",
    markdown: [
      `${turns} runs per contender and fan-out, alternating run by run. Milliseconds for the whole run; added =`,
      "over the openai loop (tools in one Promise.all), which is what the step's dispatch and collection cost.",
      "",
      markdownTable(["parallel calls", "contender", "p50", "p99", "added p50", "added p99"], rows),
    ].join("\n"),
    data: { turns, byFanOut: data },
  };
}
