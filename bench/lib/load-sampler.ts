import { loadAverage } from "./process-stats.js";

export interface ILoadSummary {
  atStart: number;
  max: number;
  mean: number;
}

/**
 * Samples the 1-minute load average every 5 s: a figure measured on a shared machine is read beside
 * the load it ran under. `summary()` covers the samples so far; `stop()` ends the sampling.
 */
export async function startLoadSampler(): Promise<{ summary(): ILoadSummary; stop(): ILoadSummary }> {
  const samples = [await loadAverage()];
  const timer = setInterval(() => void loadAverage().then((load) => samples.push(load)), 5_000);
  const summary = (): ILoadSummary => ({
    atStart: samples[0]!,
    max: Math.max(...samples),
    mean: Math.round((samples.reduce((sum, value) => sum + value, 0) / samples.length) * 100) / 100,
  });
  return {
    summary,
    stop() {
      clearInterval(timer);
      return summary();
    },
  };
}
