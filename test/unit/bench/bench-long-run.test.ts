import { describe, expect, it } from "vitest";
import type { IBenchEnvironment } from "../../../bench/lib/environment.js";
import {
  type ILongRunData,
  type ILongRunFigures,
  perAddedStep,
  stepGrowth,
  stepGrowthPairs,
  threadFiguresAt,
  threadGrowth,
} from "../../../bench/lib/long-run-growth.js";
import { checkTargets } from "../../../bench/lib/targets.js";

/** A run's figures with the bytes and CPU given (the rest follows the bytes, unused by the targets). */
const run = (redisInputKb: number, processCpuMs: number): ILongRunFigures => ({
  redisInputKb,
  serverCommands: redisInputKb * 10,
  processCpuMs,
  redisCpuMs: processCpuMs / 4,
  latencyMs: processCpuMs * 2,
});

/** Bytes and CPU of a run of `steps` steps costing `fixed` plus `perStep(k)` for its k-th added step. */
function linearRun(steps: number, fixed: [number, number], perStep: [number, number]): ILongRunFigures {
  return run(fixed[0] + (steps - 1) * perStep[0], fixed[1] + (steps - 1) * perStep[1]);
}

/**
 * A run whose k-th step costs in proportion to k (a whole history written at each step): per added step
 * at n is `unit` × (n + 2) / 2.
 */
function quadraticRun(steps: number, unit: number): ILongRunFigures {
  let bytes = 40;
  for (let step = 2; step <= steps; step++) bytes += unit * step;
  return run(bytes, bytes / 10);
}

describe("long-run growth (issue 39)", () => {
  const linear = Object.fromEntries(
    [1, 8, 32, 128].map((steps) => [steps, linearRun(steps, [14, 8], [10.5, 5])]),
  );
  const quadratic = Object.fromEntries([1, 8, 32].map((steps) => [steps, quadraticRun(steps, 10)]));

  it("measures per added step from the run of one step: the fixed part of a run does not count", () => {
    expect(perAddedStep(linear, "redisInputKb", 8)).toBeCloseTo(10.5);
    expect(perAddedStep(linear, "redisInputKb", 128)).toBeCloseTo(10.5);
    expect(perAddedStep(linear, "processCpuMs", 32)).toBeCloseTo(5);
    expect(perAddedStep(linear, "redisInputKb", 1)).toBeUndefined();
  });

  it("gives 1 for a step that costs the same wherever it comes, more for one that costs its history", () => {
    expect(stepGrowth(linear, "redisInputKb", 8, 32)).toBeCloseTo(1);
    expect(stepGrowth(linear, "processCpuMs", 32, 128)).toBeCloseTo(1);
    // Per added step 10 × (n + 2) / 2: 50 at 8, 170 at 32.
    expect(stepGrowth(quadratic, "redisInputKb", 8, 32)).toBeCloseTo(3.4);
  });

  it("gives no ratio for a step count a contender refused or a figure it has none of", () => {
    expect(stepGrowth(quadratic, "redisInputKb", 32, 128)).toBeUndefined();
    const noRedis = { 1: run(0, 5), 8: run(0, 12), 32: run(0, 30) };
    expect(stepGrowth(noRedis, "redisInputKb", 8, 32)).toBeUndefined();
    // (30 − 5) ÷ 31 against (12 − 5) ÷ 7.
    expect(stepGrowth(noRedis, "processCpuMs", 8, 32)).toBeCloseTo(0.806);
  });

  it("pairs each step count after the first with the next", () => {
    expect(stepGrowthPairs([1, 8, 32, 128])).toEqual([
      [8, 32],
      [32, 128],
    ]);
    expect(stepGrowthPairs([1, 8, 32, 100])).toEqual([
      [8, 32],
      [32, 100],
    ]);
    expect(stepGrowthPairs([1, 8])).toEqual([]);
  });

  it("takes a thread's run with its neighbours, never the thread's first run, nothing past its end", () => {
    // CPU 100 on the first run (it creates the thread), then 10, 11, 50 (one noisy run), 13...; the
    // median of two is the lower (nearest rank).
    const thread = [100, 10, 11, 50, 13, 14].map((cpu, index) => run(index, cpu));
    expect(threadFiguresAt(thread, 2)?.processCpuMs).toBe(10);
    expect(threadFiguresAt(thread, 4)?.processCpuMs).toBe(13);
    expect(threadFiguresAt(thread, 6)?.processCpuMs).toBe(13);
    expect(threadFiguresAt(thread, 1)).toBeUndefined();
    expect(threadFiguresAt(thread, 7)).toBeUndefined();
    expect(threadGrowth({ 2: run(50, 10), 30: run(300, 15) }, "redisInputKb", 2, 30)).toBe(6);
    expect(threadGrowth({ 2: run(50, 10) }, "redisInputKb", 2, 30)).toBeUndefined();
  });
});

describe("bench targets of the long-run scenario (issue 39)", () => {
  const names = { tollgate: "tollgate", floor: "floor", floorRecords: "records", openAiLoop: "loop" };
  const data: ILongRunData = {
    names,
    outputBytes: 2048,
    stepCounts: [1, 8, 32, 128],
    steps: {
      // Tollgate refused 128 steps: no 128 ÷ 32 ratio.
      tollgate: { 1: quadraticRun(1, 10), 8: quadraticRun(8, 10), 32: quadraticRun(32, 10) },
      floor: Object.fromEntries([1, 8, 32, 128].map((steps) => [steps, linearRun(steps, [14, 8], [10, 5])])),
      records: { 1: quadraticRun(1, 12), 8: quadraticRun(8, 12), 32: quadraticRun(32, 12) },
      loop: Object.fromEntries([1, 8, 32, 128].map((steps) => [steps, linearRun(steps, [0, 5], [0, 1])])),
    },
    refused: { tollgate: { 128: "TG_INVALID_REQUEST: maxSteps" }, floor: {}, records: {}, loop: {} },
    runsPerCount: { 1: 3, 8: 3, 32: 2, 128: 1 },
    thread: {
      tollgate: { 2: run(50, 10), 10: run(120, 11), 30: run(300, 11.5) },
      floor: { 2: run(14, 6), 10: run(14, 6.2), 30: run(14.2, 7.5) },
      records: { 2: run(55, 7), 30: run(310, 10) },
      loop: { 2: run(0, 2), 30: run(0, 2.2) },
    },
    threadRuns: 30,
  };
  // The shared contenders' names: no scenario of theirs is in these results.
  const contenders = Object.fromEntries(
    ["openAiLoop", "floor", "floorProcess", "floorRecords", "tollgateInProcess", "tollgateCli"].map((key) => [
      key,
      { name: key },
    ]),
  );
  const checks = checkTargets({ contenders } as unknown as IBenchEnvironment, {
    "long-run": { title: "", markdown: "", data: data as unknown as Record<string, unknown> },
  });
  const find = (target: string) => checks.find((check) => check.target === target);

  it.each([
    { target: "bytes Redis received per added step, 32 ÷ 8 steps, tollgate", measured: 3.4, met: false },
    { target: "process CPU per added step, 32 ÷ 8 steps, tollgate", measured: 3.4, met: false },
    {
      target: "bytes Redis received per run on one thread, its 30th ÷ its 2nd, tollgate",
      measured: 6,
      met: false,
    },
    { target: "process CPU per run on one thread, its 30th ÷ its 2nd, tollgate", measured: 1.15, met: true },
  ])("limits Tollgate's $target to 1.2 ($measured)", ({ target, measured, met }) => {
    expect(find(target)).toEqual({ target, measured, limit: 1.2, direction: "at most", met });
  });

  it.each([
    { target: "bytes Redis received per added step, 32 ÷ 8 steps, floor", measured: 1 },
    { target: "bytes Redis received per added step, 128 ÷ 32 steps, floor", measured: 1 },
    { target: "process CPU per added step, 128 ÷ 32 steps, floor", measured: 1 },
    { target: "process CPU per run on one thread, its 30th ÷ its 2nd, floor", measured: 1.25 },
    { target: "bytes Redis received per added step, 32 ÷ 8 steps, records", measured: 3.4 },
    { target: "bytes Redis received per run on one thread, its 30th ÷ its 2nd, records", measured: 5.64 },
    { target: "process CPU per added step, 128 ÷ 32 steps, loop", measured: 1 },
    { target: "process CPU per run on one thread, its 30th ÷ its 2nd, loop", measured: 1.1 },
  ])("reports the floors' and the loop's $target ($measured) with no limit", ({ target, measured }) => {
    expect(find(target)).toMatchObject({ target, measured, direction: "reported", met: true });
  });

  it("leaves out what a contender could not give: a refused step count, bytes of a run without Redis", () => {
    expect(find("bytes Redis received per added step, 128 ÷ 32 steps, tollgate")).toBeUndefined();
    expect(find("process CPU per added step, 128 ÷ 32 steps, records")).toBeUndefined();
    expect(
      checks.filter((check) => check.target.startsWith("bytes") && check.target.endsWith("loop")),
    ).toEqual([]);
  });
});
