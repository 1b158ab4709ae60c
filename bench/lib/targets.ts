import type { IBenchEnvironment } from "./environment.js";
import { markdownTable } from "./markdown-table.js";
import type { ILatencySummary } from "./percentiles.js";
import { round } from "./percentiles.js";
import type { IScenarioResult } from "./scenario.js";

export interface ITargetCheck {
  target: string;
  measured: number;
  limit: number;
  /** Whether lower is better (≤ limit) or higher (≥ limit). */
  direction: "at most" | "at least";
  met: boolean;
}

/** The ratios the Targets section names, from the results of this one run. */
export function checkTargets(
  environment: IBenchEnvironment,
  results: Record<string, IScenarioResult>,
): ITargetCheck[] {
  const checks: ITargetCheck[] = [];
  const add = (target: string, measured: number, direction: ITargetCheck["direction"], limit: number) => {
    // A ratio over a floor that added nothing (or less than nothing: noise at small counts) says nothing.
    if (!Number.isFinite(measured) || measured < 0) return;
    const value = round(measured, 2);
    checks.push({
      target,
      measured: value,
      limit,
      direction,
      met: direction === "at most" ? value <= limit : value >= limit,
    });
  };
  const { openAiLoop, floor, tollgateInProcess, tollgateCli } = environment.contenders;
  const latency = results.latency?.data.summaries as Record<string, ILatencySummary> | undefined;
  if (latency) {
    const loop = latency[openAiLoop.name]!;
    const floorSummary = latency[floor.name]!;
    for (const tollgate of [tollgateInProcess, tollgateCli]) {
      const summary = latency[tollgate.name]!;
      for (const key of ["p50", "p99"] as const) {
        add(
          `added latency over the openai loop, ${tollgate.name} ÷ floor's, ${key}`,
          (summary[key] - loop[key]) / (floorSummary[key] - loop[key]),
          "at most",
          1.3,
        );
      }
    }
  }
  const throughput = results.throughput?.data.figures as
    | Record<string, { runsPerSecond: number; redisCpuMs: number }>
    | undefined;
  if (throughput) {
    const floorFigures = throughput[floor.name]!;
    for (const tollgate of [tollgateInProcess, tollgateCli]) {
      const figures = throughput[tollgate.name]!;
      add(
        `throughput at 50 in flight, ${tollgate.name} ÷ floor's`,
        figures.runsPerSecond / floorFigures.runsPerSecond,
        "at least",
        0.8,
      );
      add(
        `Redis CPU per run, ${tollgate.name} ÷ floor's`,
        figures.redisCpuMs / floorFigures.redisCpuMs,
        "at most",
        1.3,
      );
    }
  }
  const approvals = results.approvals?.data as
    | {
        summaries: Record<string, ILatencySummary>;
        floorName: string;
        tollgateName: string;
      }
    | undefined;
  if (approvals) {
    const tollgate = approvals.summaries[approvals.tollgateName]!;
    const approvalFloor = approvals.summaries[approvals.floorName]!;
    add("approve → tool start ÷ its floor, p50", tollgate.p50 / approvalFloor.p50, "at most", 1.5);
    add("approve → tool start ÷ its floor, p99", tollgate.p99 / approvalFloor.p99, "at most", 1.5);
  }
  const streaming = results.streaming?.data.added as
    | {
        firstDeltaP50Ms: number;
        processCpuRatio: number;
        processCpuRatioOverSdk: number;
      }
    | undefined;
  if (streaming) {
    add(
      "first text-delta (SSE reader) over the in-process openai stream, 1 in flight, p50 (ms)",
      streaming.firstDeltaP50Ms,
      "at most",
      5,
    );
    add("process CPU per run, streaming on ÷ off", streaming.processCpuRatio, "at most", 1.1);
    // The openai SDK alone pays ~2,000 chunk parses for any streamed answer: Tollgate's own part of it.
    add(
      "process CPU per run, streaming on ÷ off, the openai SDK's chunk parsing left out",
      streaming.processCpuRatioOverSdk,
      "at most",
      1.1,
    );
  }
  const parked = results["parked-memory"]?.data.levels as Array<Record<string, number>> | undefined;
  for (const level of parked ?? []) {
    add(`bytes per parked approval at ${level.level} parked`, level.approvalBytes!, "at most", 2048);
    add(`bytes per parked run at ${level.level} parked`, level.tollgatePerRun!, "at most", 8192);
  }
  const footprint = results["worker-footprint"]?.data as
    | { inFlightMb: number; source?: { inFlightMb: number } }
    | undefined;
  if (footprint) {
    // The target is the shipped worker's (compiled); the worker run through tsx is shown beside it.
    add("worker RSS with 100 runs in flight, compiled worker (MB)", footprint.inFlightMb, "at most", 150);
    if (footprint.source)
      add(
        "worker RSS with 100 runs in flight, worker from source via tsx (MB)",
        footprint.source.inFlightMb,
        "at most",
        150,
      );
  }
  return checks;
}

export function targetsTable(checks: readonly ITargetCheck[]): string {
  if (checks.length === 0) return "None: the scenarios run measure no target.";
  return markdownTable(
    ["target", "measured", "limit", "met"],
    checks.map((check) => [
      check.target,
      check.measured,
      `${check.direction} ${check.limit}`,
      check.met ? "yes" : "**no**",
    ]),
  );
}
