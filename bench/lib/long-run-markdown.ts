import {
  type ILongRunData,
  perAddedStep,
  stepGrowth,
  stepGrowthPairs,
  type TLongRunFigure,
  threadGrowth,
  threadPositions,
} from "./long-run-growth.js";
import { markdownTable, type TCell } from "./markdown-table.js";
import { round } from "./percentiles.js";

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

/** The long-run scenario's tables. */
export function longRunMarkdown(data: ILongRunData): string {
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
  // The 2nd against the 30th (issue 39's limit), and the 30th against the last reported.
  const threadPairs = [
    [2, 30],
    [30, positions.at(-1)!],
  ].filter(([earlier, later]) => later! > earlier! && later! <= data.threadRuns) as Array<[number, number]>;
  const threadRows = contenders.map((name) => [
    name,
    ...(["redisInputKb", "processCpuMs"] as const).flatMap((figure) => [
      ...positions.map((position) => {
        const value = data.thread[name]![position]?.[figure];
        return value === undefined ? undefined : round(value, 2);
      }),
      ...threadPairs.map(([earlier, later]) => {
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
        ...[
          ["KB received", "KB"],
          ["process CPU ms", "CPU"],
        ].flatMap(([label, short]) => [
          ...positions.map((position) => `${label}, run ${position}`),
          ...threadPairs.map(([earlier, later]) => `${short} ${ordinal(later)} ÷ ${ordinal(earlier)}`),
        ]),
      ],
      threadRows,
    ),
  ].join("\n");
}

/** 2 → "2nd", 30 → "30th". */
function ordinal(position: number): string {
  const suffix =
    Math.floor(position / 10) % 10 === 1 ? "th" : (["th", "st", "nd", "rd"][position % 10] ?? "th");
  return `${position}${suffix}`;
}
