import type { IBenchEnvironment } from "./environment.js";

/** What a scenario hands back: Markdown for the console and docs, data for bench/results/<date>.json. */
export interface IScenarioResult {
  title: string;
  markdown: string;
  data: Record<string, unknown>;
}

export type TScenario = (environment: IBenchEnvironment) => Promise<IScenarioResult>;

/** Picks the full count or the --quick one. */
export function sized(environment: IBenchEnvironment, full: number, quick: number): number {
  return environment.quick ? quick : full;
}
