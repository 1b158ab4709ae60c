import { spawnSync } from "node:child_process";

export interface IPromtoolResult {
  exitCode: number;
  output: string;
}

/**
 * Runs promtool. It must be installed: these tests are the only check of the deploy files and must
 * not be skipped quietly, so a missing promtool fails them with the command that installs it.
 */
export function promtool(args: readonly string[], input?: string): IPromtoolResult {
  const result = spawnSync("promtool", args, { input, encoding: "utf8", timeout: 60_000 });
  if (result.error && (result.error as NodeJS.ErrnoException).code === "ENOENT") {
    throw new Error(
      "promtool is not installed, so the Prometheus files cannot be checked. " +
        "Run `bash scripts/ensure-prometheus.sh` (as root; CI runs it before the tests).",
    );
  }
  if (result.error) throw result.error;
  return { exitCode: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
}
