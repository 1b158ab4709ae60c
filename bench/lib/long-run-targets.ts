import {
  type ILongRunData,
  stepGrowth,
  stepGrowthPairs,
  type TLongRunFigure,
  threadGrowth,
} from "./long-run-growth.js";
import type { IScenarioResult } from "./scenario.js";
import type { TAddCheck } from "./targets.js";

/** The figures whose growth issue 39 limits: what Redis received, and process CPU. */
const limitedFigures: ReadonlyArray<readonly [TLongRunFigure, string]> = [
  ["redisInputKb", "bytes Redis received"],
  ["processCpuMs", "process CPU"],
];

/** The growth limit: a step (or a thread's run) later on may cost at most 1.2× one earlier. */
const growthLimit = 1.2;

/**
 * Issue 39's growth targets from the long-run scenario: per added step at 32 ÷ at 8 steps and at 128 ÷
 * at 32, and a thread's 30th run ÷ its 2nd, of bytes and of process CPU, limited for Tollgate; the same
 * ratios of the floor, the floor with records and the openai loop reported beside them, as what the
 * design (or the model request alone) makes them. A ratio a contender could not give (a step count it
 * refused, no bytes at all) is left out.
 */
export function longRunChecks(results: Record<string, IScenarioResult>, add: TAddCheck): void {
  const data = results["long-run"]?.data as ILongRunData | undefined;
  if (!data) return;
  const { tollgate, floor, floorRecords, openAiLoop } = data.names;
  for (const name of [tollgate, floor, floorRecords, openAiLoop]) {
    const [direction, limit] =
      name === tollgate ? (["at most", growthLimit] as const) : (["reported", Number.NaN] as const);
    for (const [figure, what] of limitedFigures) {
      for (const [shorter, longer] of stepGrowthPairs(data.stepCounts)) {
        const ratio = stepGrowth(data.steps[name] ?? {}, figure, shorter, longer);
        if (ratio !== undefined)
          add(`${what} per added step, ${longer} ÷ ${shorter} steps, ${name}`, ratio, direction, limit);
      }
      const ratio = threadGrowth(data.thread[name] ?? {}, figure, 2, 30);
      if (ratio !== undefined)
        add(`${what} per run on one thread, its 30th ÷ its 2nd, ${name}`, ratio, direction, limit);
    }
  }
}
