import { availableParallelism } from "node:os";
import { tollgateCli } from "../contenders/tollgate-cli.js";
import { alternate, withInFlight } from "../lib/alternate.js";
import type { IBenchEnvironment } from "../lib/environment.js";
import { markdownTable } from "../lib/markdown-table.js";
import { median, round } from "../lib/percentiles.js";
import { measureRunCost } from "../lib/run-cost.js";
import { type IScenarioResult, sized } from "../lib/scenario.js";

const totalConcurrency = 48;
const processCounts = [1, 2, 4];

/**
 * Scenario 7: 1, 2 and 4 `tollgate worker` processes sharing the same total concurrency (48), 48 runs in
 * flight, alternating batch by batch. On a machine with fewer cores than processes they only share them.
 */
export async function scale(environment: IBenchEnvironment): Promise<IScenarioResult> {
  const contenders = [];
  for (const processes of processCounts) {
    contenders.push(
      await tollgateCli({
        redisUrl: environment.redis.url,
        modelUrl: environment.model.url,
        prefix: `tg-scale-${processes}`,
        concurrency: totalConcurrency,
        processes,
        name: `${processes} worker process${processes > 1 ? "es" : ""} × concurrency ${totalConcurrency / processes}`,
      }),
    );
  }
  try {
    const runs = sized(environment, 300, 100);
    const batches = sized(environment, 3, 2);
    const measured = await alternate(
      contenders,
      { warmupTurns: 1, turns: batches },
      async (contender, turn) => {
        let seconds = 0;
        const cost = await measureRunCost(environment, contender.childPids, runs, async () => {
          const started = performance.now();
          await withInFlight(runs, totalConcurrency, (index) => contender.run(`scale-${turn}-${index}`));
          seconds = (performance.now() - started) / 1000;
        });
        return { ...cost, runsPerSecond: runs / seconds };
      },
    );
    const rows = contenders.map((contender) => {
      const batchFigures = measured.get(contender.name)!;
      const medianOf = (pick: (figure: (typeof batchFigures)[number]) => number) =>
        round(median(batchFigures.map(pick)), 2);
      return [
        contender.name,
        round(
          medianOf((figure) => figure.runsPerSecond),
          0,
        ),
        medianOf((figure) => figure.processCpuMs),
        medianOf((figure) => figure.redisCpuMs),
      ];
    });
    return {
      title: "Scale: worker processes at the same total concurrency",
      markdown: [
        `${availableParallelism()} cores for everything (Redis, the scripted model, the caller, the workers). ${batches}`,
        `batches of ${runs} runs per setting after a warm-up, ${totalConcurrency} in flight; medians.`,
        "",
        markdownTable(["workers", "runs/s", "process CPU ms/run", "Redis CPU ms/run"], rows),
      ].join("\n"),
      data: { cores: availableParallelism(), runs, batches, rows },
    };
  } finally {
    for (const contender of contenders) await contender.close();
  }
}
