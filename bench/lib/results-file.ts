import { mkdir, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

/**
 * Writes a bench's report to `bench/results/<start time><suffix>.json` (`-quick` appended for `--quick`
 * runs, which git ignores); returns the file's path.
 */
export async function writeResults(
  report: Record<string, unknown> & { startedAt: string; quick: boolean },
  suffix = "",
): Promise<string> {
  const directory = fileURLToPath(new URL("../results/", import.meta.url));
  await mkdir(directory, { recursive: true });
  const stamp = report.startedAt.replace(/:/g, "-").replace(/\.\d+Z$/, "Z");
  const file = `${directory}${stamp}${suffix}${report.quick ? "-quick" : ""}.json`;
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
