import { TollgateError } from "../../src/errors/index.js";
import { floorLongRun } from "../contenders/floor-long-run.js";
import { floorWithRecords } from "../contenders/floor-with-records.js";
import type { ILongRunContender } from "../contenders/long-run-contender.js";
import { openAiLoopLongRun } from "../contenders/openai-loop-long-run.js";
import { tollgateLongRun } from "../contenders/tollgate-long-run.js";
import { alternate, rotated } from "../lib/alternate.js";
import type { IBenchEnvironment } from "../lib/environment.js";
import {
  type ILongRunData,
  type ILongRunFigures,
  type ILongRunNames,
  medianFigures,
  type TFiguresBySteps,
  type TFiguresByThreadRun,
  threadFiguresAt,
  threadPositions,
} from "../lib/long-run-growth.js";
import { longRunMarkdown } from "../lib/long-run-markdown.js";
import { infoBytes, redisInputBytes, waitForQuietRedis } from "../lib/redis-stats.js";
import { measureRunCost } from "../lib/run-cost.js";
import { type IScenarioResult, sized } from "../lib/scenario.js";
import { stepsScript } from "../lib/scripts.js";

/** What the tool returns at every step: 2 KB, as issue 39's measurement. */
const outputBytes = 2_048;
const defaultStepCounts = [1, 8, 32, 128];
/** The INFO reads around a measured run that Redis counts in its bytes: measureRunCost's four, then one. */
const benchInfoBytes = 2 * infoBytes("cpu") + 2 * infoBytes("commandstats") + infoBytes("stats");

/**
 * Issue 39's long runs and long threads, one run at a time after a warm-up run, on the bench's private
 * Redis: runs of 1, 8, 32 and 128 steps, each step one call of a tool returning 2 KB; then a thread of
 * 100 runs of one such step. Per run: the bytes Redis received (INFO stats), its commands, process and
 * Redis CPU, latency. Contenders: Tollgate (in-process worker), the floor (each step kept once: its
 * child jobs' values; a thread's history appended once per run), the floor with records (its whole
 * state saved at each step, as today's records), and the openai loop (no Redis: the model request's
 * own growth). Alternating run by run.
 */
export async function longRun(environment: IBenchEnvironment): Promise<IScenarioResult> {
  const common = { redisUrl: environment.redis.url, modelUrl: environment.model.url, concurrency: 8 };
  const records = await floorWithRecords({ ...common, prefix: "long-floor-records" });
  const contenders: ILongRunContender[] = [
    openAiLoopLongRun(environment.model.url),
    await floorLongRun({ ...common, prefix: "long-floor" }),
    {
      name: records.name,
      async run({ input, threadId }) {
        const response = await records.ask(input, threadId);
        if (response.text !== "done") throw new Error(`floor with records: answered ${response.text}`);
        return response.threadId;
      },
      close: () => records.close(),
    },
    await tollgateLongRun({ ...common, prefix: "long-tg" }),
  ];
  const [openAiLoop, floor, floorRecords, tollgate] = contenders.map((contender) => contender.name) as [
    string,
    string,
    string,
    string,
  ];
  const names: ILongRunNames = { tollgate, floor, floorRecords, openAiLoop };
  try {
    const stepCounts = environment.stepCounts ?? defaultStepCounts;
    // Fewer of the longer runs: a 128-step run of today's records takes seconds.
    const runsPerCount: Record<number, number> = Object.fromEntries(
      stepCounts.map((count) => [
        count,
        count <= 1
          ? sized(environment, 9, 3)
          : count <= 8
            ? sized(environment, 7, 3)
            : count <= 32
              ? sized(environment, 5, 2)
              : sized(environment, 3, 1),
      ]),
    );
    const steps: Record<string, TFiguresBySteps> = {};
    const refused: Record<string, Record<number, string>> = {};
    for (const contender of contenders) {
      steps[contender.name] = {};
      refused[contender.name] = {};
    }
    for (const count of stepCounts) {
      const taking: ILongRunContender[] = [];
      for (const contender of contenders) {
        const refusal = await warmUp(contender, count);
        if (refusal === undefined) taking.push(contender);
        else refused[contender.name]![count] = refusal;
      }
      const samples = await alternate(
        taking,
        { warmupTurns: 0, turns: runsPerCount[count]! },
        (contender, turn) =>
          measureRun(environment, () =>
            contender.run({ input: stepsScript(`s${count}-${turn}`, count, outputBytes), steps: count }),
          ),
      );
      for (const [name, figures] of samples) steps[name]![count] = medianFigures(figures);
    }
    const threadRuns = sized(environment, 100, 30);
    const thread = await measureThread(environment, contenders, threadRuns);
    const data: ILongRunData = {
      names,
      outputBytes,
      stepCounts,
      steps,
      refused,
      runsPerCount,
      thread,
      threadRuns,
    };
    return {
      title: "Long runs and long threads: cost per step and per run",
      markdown: longRunMarkdown(data),
      data: data as unknown as Record<string, unknown>,
    };
  } finally {
    for (const contender of contenders) await contender.close();
  }
}

/** One unmeasured run at `steps`; Tollgate's refusal of the step count (its `maxSteps` limit) is returned. */
async function warmUp(contender: ILongRunContender, steps: number): Promise<string | undefined> {
  try {
    await contender.run({ input: stepsScript(`warm-${steps}`, steps, outputBytes), steps });
    return undefined;
  } catch (error) {
    if (error instanceof TollgateError && error.code === "TG_INVALID_REQUEST")
      return `${error.code}: ${error.message}`;
    throw error;
  }
}

/** One thread per contender, its runs alternating with the other contenders' run by run. */
async function measureThread(
  environment: IBenchEnvironment,
  contenders: readonly ILongRunContender[],
  runs: number,
): Promise<Record<string, TFiguresByThreadRun>> {
  const threads = new Map<string, string | undefined>();
  const byRun = new Map<string, ILongRunFigures[]>(contenders.map((contender) => [contender.name, []]));
  for (let position = 1; position <= runs; position++) {
    for (const contender of rotated(contenders, position)) {
      let threadId = threads.get(contender.name);
      const figures = await measureRun(environment, async () => {
        threadId = await contender.run({
          input: stepsScript(`t${position}`, 1, outputBytes),
          steps: 1,
          threadId,
        });
      });
      threads.set(contender.name, threadId);
      byRun.get(contender.name)!.push(figures);
    }
  }
  const reported: Record<string, TFiguresByThreadRun> = {};
  for (const [name, figures] of byRun) {
    reported[name] = {};
    for (const position of threadPositions) {
      const figuresAt = threadFiguresAt(figures, position);
      if (figuresAt !== undefined) reported[name]![position] = figuresAt;
    }
  }
  return reported;
}

/**
 * One run's cost: the bytes Redis received from its start until Redis is quiet after it (what it leaves
 * behind counted with it; the bench's INFO reads taken out), and the rest over the same span. Latency is
 * the caller's, to the answer.
 */
async function measureRun(
  environment: IBenchEnvironment,
  body: () => Promise<unknown>,
): Promise<ILongRunFigures> {
  const redis = environment.redis.redis;
  const bytesBefore = await redisInputBytes(redis);
  let latencyMs = Number.NaN;
  let quietReads = 0;
  const cost = await measureRunCost(environment, [], 1, async () => {
    const started = performance.now();
    await body();
    latencyMs = performance.now() - started;
    quietReads = await waitForQuietRedis(redis);
  });
  const bytes =
    (await redisInputBytes(redis)) - bytesBefore - benchInfoBytes - quietReads * infoBytes("stats");
  return {
    redisInputKb: bytes / 1024,
    serverCommands: cost.serverCommands,
    processCpuMs: cost.processCpuMs,
    redisCpuMs: cost.redisCpuMs,
    latencyMs,
  };
}
