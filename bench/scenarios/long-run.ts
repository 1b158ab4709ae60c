import { TollgateError } from "../../src/errors/index.js";
import { floorLongRun } from "../contenders/floor-long-run.js";
import { floorWithRecords } from "../contenders/floor-with-records.js";
import type { ILongRunContender } from "../contenders/long-run-contender.js";
import { openAiLoopLongRun } from "../contenders/openai-loop-long-run.js";
import { tollgateLongRun } from "../contenders/tollgate-long-run.js";
import { alternate, rotated } from "../lib/alternate.js";
import type { IBenchEnvironment } from "../lib/environment.js";
import {
  type ILongRunFigures,
  medianFigures,
  perAddedStep,
  stepGrowth,
  stepGrowthPairs,
  type TFiguresBySteps,
  type TFiguresByThreadRun,
  type TLongRunFigure,
  threadFiguresAt,
  threadGrowth,
} from "../lib/long-run-growth.js";
import { markdownTable, type TCell } from "../lib/markdown-table.js";
import { round } from "../lib/percentiles.js";
import { infoBytes, redisInputBytes, waitForQuietRedis } from "../lib/redis-stats.js";
import { measureRunCost } from "../lib/run-cost.js";
import { type IScenarioResult, sized } from "../lib/scenario.js";
import { stepsScript } from "../lib/scripts.js";

/** What the tool returns at every step: 2 KB, as issue 39's measurement. */
const outputBytes = 2_048;
const defaultStepCounts = [1, 8, 32, 128];
/** The runs of a thread whose figures are reported (those the quick form reaches). */
const threadPositions = [2, 10, 30, 100] as const;
/** The INFO reads around a measured run that Redis counts in its bytes: measureRunCost's four, then one. */
const benchInfoBytes = 2 * infoBytes("cpu") + 2 * infoBytes("commandstats") + infoBytes("stats");

/** The names the targets read the scenario's figures by. */
export interface ILongRunNames {
  tollgate: string;
  floor: string;
  floorRecords: string;
  openAiLoop: string;
}

export interface ILongRunData {
  names: ILongRunNames;
  outputBytes: number;
  stepCounts: number[];
  /** Per contender, by step count; a count it refused is in `refused`. */
  steps: Record<string, TFiguresBySteps>;
  refused: Record<string, Record<number, string>>;
  /** Runs measured per step count. */
  runsPerCount: Record<number, number>;
  /** Per contender, by the run's position on its thread (each the median of it and its neighbours). */
  thread: Record<string, TFiguresByThreadRun>;
  threadRuns: number;
}

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

const figureColumns: ReadonlyArray<readonly [TLongRunFigure, string]> = [
  ["redisInputKb", "KB Redis received"],
  ["serverCommands", "Redis commands"],
  ["processCpuMs", "process CPU ms"],
  ["redisCpuMs", "Redis CPU ms"],
  ["latencyMs", "latency ms"],
];

/** The figures shown per added step, and compared between step counts (the growth table). */
const perStepColumns: ReadonlyArray<readonly [TLongRunFigure, string]> = [
  ["redisInputKb", "KB"],
  ["serverCommands", "commands"],
  ["processCpuMs", "process CPU"],
  ["latencyMs", "latency"],
];

function longRunMarkdown(data: ILongRunData): string {
  const contenders = Object.keys(data.steps);
  const pairs = stepGrowthPairs(data.stepCounts);
  const stepRows: TCell[][] = [];
  for (const name of contenders) {
    for (const count of data.stepCounts) {
      const figures = data.steps[name]![count];
      const refusal = data.refused[name]![count];
      if (figures === undefined) {
        if (refusal !== undefined) stepRows.push([name, count, `refused: ${refusal}`]);
        continue;
      }
      stepRows.push([
        name,
        count,
        ...figureColumns.map(([figure]) => round(figures[figure], 2)),
        ...perStepColumns.map(([figure]) => {
          const added = perAddedStep(data.steps[name]!, figure, count);
          return added === undefined ? undefined : round(added, 3);
        }),
      ]);
    }
  }
  const growthRows = contenders.map((name) => [
    name,
    ...perStepColumns.flatMap(([figure]) =>
      pairs.map(([shorter, longer]) => {
        const ratio = stepGrowth(data.steps[name]!, figure, shorter, longer);
        return ratio === undefined ? undefined : round(ratio, 2);
      }),
    ),
  ]);
  const positions = threadPositions.filter((position) => position <= data.threadRuns);
  const threadRows = contenders.map((name) => [
    name,
    ...(["redisInputKb", "processCpuMs"] as const).flatMap((figure) => [
      ...positions.map((position) => {
        const value = data.thread[name]![position]?.[figure];
        return value === undefined ? undefined : round(value, 2);
      }),
      ...[[2, 30] as const, [30, 100] as const].map(([earlier, later]) => {
        const ratio = threadGrowth(data.thread[name]!, figure, earlier, later);
        return ratio === undefined ? undefined : round(ratio, 2);
      }),
    ]),
  ]);
  return [
    `One run at a time after a warm-up run at each step count, the contenders alternating run by run; each`,
    `step is one model reply calling a tool that returns ${data.outputBytes} characters, then the answer "done".`,
    `Runs measured per step count: ${data.stepCounts.map((count) => `${data.runsPerCount[count]} at ${count}`).join(", ")}; medians.`,
    "Bytes: what Redis received from every client during the run (INFO stats' total_net_input_bytes, the",
    "bench's own INFO taken out); commands: INFO commandstats (inside scripts included); process CPU: the",
    "bench process (callers and in-process workers; the scripted model is a process of its own). Per added",
    "step: (figure at n steps − figure at 1) ÷ (n − 1). The floor keeps each step once (its tool jobs' values)",
    "and appends a run's messages to its thread once; the floor with records saves its whole state at each",
    "step as today's records do; the openai loop keeps everything in memory (no Redis).",
    "",
    markdownTable(
      [
        "contender",
        "steps",
        ...figureColumns.map(([, label]) => `${label}/run`),
        ...perStepColumns.map(([, label]) => `${label} per added step`),
      ],
      stepRows,
    ),
    "",
    `Growth of a step's cost: per added step at ${pairs.map(([shorter, longer]) => `${longer} ÷ at ${shorter}`).join(", and at ")}`,
    "steps (1 when a step costs the same wherever it comes; issue 39's limit for Tollgate's bytes and CPU: 1.2).",
    "",
    markdownTable(
      [
        "contender",
        ...perStepColumns.flatMap(([, label]) =>
          pairs.map(([shorter, longer]) => `${label} ${longer} ÷ ${shorter}`),
        ),
      ],
      growthRows,
    ),
    "",
    `A thread of ${data.threadRuns} runs of one step each, per contender, alternating run by run; each figure`,
    "is the median of that run and its neighbours on the thread. Threads keep 200 messages (Tollgate's",
    "default `maxHistoryMessages`; a run adds 4), so from about the 50th run the history stops growing.",
    "",
    markdownTable(
      [
        "contender",
        ...positions.map((position) => `KB received, run ${position}`),
        "KB 30th ÷ 2nd",
        "KB 100th ÷ 30th",
        ...positions.map((position) => `process CPU ms, run ${position}`),
        "CPU 30th ÷ 2nd",
        "CPU 100th ÷ 30th",
      ],
      threadRows,
    ),
  ].join("\n");
}
