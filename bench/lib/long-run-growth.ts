import { median } from "./percentiles.js";

/** What one run of the long-run scenario cost (medians over the runs measured at the same point). */
export interface ILongRunFigures {
  /** KB Redis received (INFO stats' total_net_input_bytes), the bench's own INFO taken out. */
  redisInputKb: number;
  /** Commands Redis executed (INFO commandstats, those inside scripts included). */
  serverCommands: number;
  /** CPU of the bench process (caller and in-process workers). */
  processCpuMs: number;
  redisCpuMs: number;
  /** From the request to the answer, the caller's view. */
  latencyMs: number;
}

export type TLongRunFigure = keyof ILongRunFigures;

/** A contender's figures by step count (1, 8, 32, 128); a count it refused is absent. */
export type TFiguresBySteps = Partial<Record<number, ILongRunFigures>>;

/** A contender's figures by the run's position on its thread (1 is the thread's first run). */
export type TFiguresByThreadRun = Partial<Record<number, ILongRunFigures>>;

/**
 * What a step adds beyond a run's first, at `steps`: (X(steps) − X(1)) ÷ (steps − 1). A run costs a
 * fixed part plus its steps; with this, a step that costs the same at every position gives the same
 * figure at every count (X ÷ steps would fall as the fixed part spreads), and a step that costs in
 * proportion to the history before it gives a figure that grows with the count.
 */
export function perAddedStep(
  figures: TFiguresBySteps,
  figure: TLongRunFigure,
  steps: number,
): number | undefined {
  const one = figures[1]?.[figure];
  const many = figures[steps]?.[figure];
  if (one === undefined || many === undefined || steps <= 1) return undefined;
  return (many - one) / (steps - 1);
}

/** perAddedStep at `longer` ÷ at `shorter`: 1 when a step's cost does not grow with the run. */
export function stepGrowth(
  figures: TFiguresBySteps,
  figure: TLongRunFigure,
  shorter: number,
  longer: number,
): number | undefined {
  const base = perAddedStep(figures, figure, shorter);
  const grown = perAddedStep(figures, figure, longer);
  if (base === undefined || grown === undefined || base <= 0) return undefined;
  return grown / base;
}

/** The `later`-th run of a thread ÷ its `earlier`-th: 1 when a run's cost does not grow with the thread. */
export function threadGrowth(
  figures: TFiguresByThreadRun,
  figure: TLongRunFigure,
  earlier: number,
  later: number,
): number | undefined {
  const base = figures[earlier]?.[figure];
  const grown = figures[later]?.[figure];
  if (base === undefined || grown === undefined || base <= 0) return undefined;
  return grown / base;
}

/**
 * The step counts whose per-added-step figures are compared, each with the next: after the run of 1 step
 * (the base of per added step), every count with the one after it (8 with 32, 32 with 128).
 */
export function stepGrowthPairs(stepCounts: readonly number[]): Array<[number, number]> {
  const counted = stepCounts.filter((count) => count > 1);
  return counted.slice(1).map((longer, index) => [counted[index]!, longer]);
}

/** The median of each figure over `samples`. */
export function medianFigures(samples: readonly ILongRunFigures[]): ILongRunFigures {
  const of = (figure: TLongRunFigure) => median(samples.map((sample) => sample[figure]));
  return {
    redisInputKb: of("redisInputKb"),
    serverCommands: of("serverCommands"),
    processCpuMs: of("processCpuMs"),
    redisCpuMs: of("redisCpuMs"),
    latencyMs: of("latencyMs"),
  };
}

/**
 * The figures of a thread's `position`-th run (from 1), from the thread's runs in order: the median of
 * that run and its neighbours, since one run's CPU is noisy. The thread's first run, which creates the
 * thread and reads no history, is never one of them. Undefined past the thread's end.
 */
export function threadFiguresAt(
  runs: readonly ILongRunFigures[],
  position: number,
): ILongRunFigures | undefined {
  if (position < 2 || position > runs.length) return undefined;
  return medianFigures(runs.slice(Math.max(1, position - 2), Math.min(runs.length, position + 1)));
}

/** The runs of a thread whose figures are reported (those the quick form reaches). */
export const threadPositions = [2, 10, 30, 100] as const;

/** The names the targets read the scenario's figures by. */
export interface ILongRunNames {
  tollgate: string;
  floor: string;
  floorRecords: string;
  openAiLoop: string;
}

/** The long-run scenario's figures: its result's data, what the targets read. */
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
