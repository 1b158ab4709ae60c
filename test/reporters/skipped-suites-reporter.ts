import type { Reporter, TestModule, Vitest } from "vitest/node";
import type { IEnvironmentGate } from "../helpers/environment-gates.js";
import { slowSuiteFiles, slowSuites } from "../slow-suites.js";

interface ISkipped {
  file: string;
  gate: IEnvironmentGate;
}

/**
 * Ends a run with one line per environment it lacked (a Redis Cluster, Sentinel, a program): what the
 * skipped suites need, which files they are in, and the command that runs them; nothing when none was
 * skipped. The suites declare what they need with `gatedBy` (test/helpers/environment-gates.ts). A run
 * of the integration project without the slow one (`npm test`) also says what it left to `npm run test:full`.
 */
export class SkippedSuitesReporter implements Reporter {
  readonly #write: (line: string) => void;
  #projects: string[] = [];

  constructor(write: (line: string) => void = (line) => process.stdout.write(`${line}\n`)) {
    this.#write = write;
  }

  onInit(vitest: Vitest): void {
    this.#projects = vitest.projects.map((project) => project.name);
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    this.reportLeftOut();
    this.reportSkipped(testModules);
  }

  private reportLeftOut(): void {
    if (!this.#projects.includes("integration") || this.#projects.includes("slow")) return;
    const kinds = Object.keys(slowSuites).join("; ");
    this.#write("");
    this.#write(
      `Left to npm run test:full: ${slowSuiteFiles.length} slow suites (${kinds}: test/slow-suites.ts), the console in chromium and the fault suite.`,
    );
  }

  private reportSkipped(testModules: ReadonlyArray<TestModule>): void {
    const groups = new Map<string, { gate: IEnvironmentGate; files: Set<string> }>();
    for (const { file, gate } of testModules.flatMap(skippedFor)) {
      const key = `${gate.needs}\n${gate.command}`;
      const group = groups.get(key) ?? { gate, files: new Set<string>() };
      group.files.add(file);
      groups.set(key, group);
    }
    if (groups.size === 0) return;
    this.#write("");
    this.#write("Skipped for want of an environment:");
    for (const { gate, files } of groups.values()) {
      this.#write(`  needs ${gate.needs}: ${[...files].join(", ")}; run with: ${gate.command}`);
    }
  }
}

/** The gated suites and tests of a module that were skipped, outermost only. */
function skippedFor(testModule: TestModule): ISkipped[] {
  const found: ISkipped[] = [];
  const file = testModule.relativeModuleId;
  const visit = (children: TestModule["children"]): void => {
    for (const child of children) {
      const gate = child.meta().environmentGate;
      if (gate !== undefined && child.options.mode === "skip") {
        found.push({ file, gate });
        continue;
      }
      if (child.type === "suite") visit(child.children);
    }
  };
  visit(testModule.children);
  return found;
}
