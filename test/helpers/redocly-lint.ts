import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

const repositoryRoot = fileURLToPath(new URL("../../", import.meta.url));

export interface IRedoclyProblem {
  ruleId: string;
  severity: "error" | "warn";
  message: string;
  location: Array<{ pointer?: string }>;
}

export interface IRedoclyReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: IRedoclyProblem[];
}

/**
 * Lints an OpenAPI document with the pinned Redocly CLI and the repository's redocly.yaml (the
 * `recommended` rules, telemetry off). Runs offline: the CLI is given the document as a file and the
 * environment turns off its usage data and update notice as well.
 */
export async function redoclyLint(document: object): Promise<IRedoclyReport> {
  const directory = await mkdtemp(join(tmpdir(), "tollgate-redocly-"));
  try {
    const file = join(directory, "openapi.json");
    await writeFile(file, JSON.stringify(document));
    const cli = join(repositoryRoot, "node_modules/@redocly/cli/bin/cli.js");
    const args = [cli, "lint", "--config", join(repositoryRoot, "redocly.yaml"), "--format", "json", file];
    const environment = {
      ...process.env,
      REDOCLY_TELEMETRY: "off",
      REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
      NO_COLOR: "1",
    };
    // Problems make the CLI exit 1; its report is on stdout either way.
    const stdout = await run(process.execPath, args, { cwd: directory, env: environment }).then(
      (result) => result.stdout,
      (error: { stdout?: string; stderr?: string }) => {
        if (!error.stdout) throw new Error(`redocly lint failed: ${error.stderr ?? String(error)}`);
        return error.stdout;
      },
    );
    return JSON.parse(stdout) as IRedoclyReport;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** One line per problem: rule, severity, where and what. */
export function describeProblems(report: IRedoclyReport): string[] {
  return report.problems.map(
    (problem) =>
      `${problem.severity} ${problem.ruleId} at ${problem.location.map((place) => place.pointer).join(", ")}: ${problem.message}`,
  );
}
