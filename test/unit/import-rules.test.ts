import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ICruiseResult, IForbiddenRuleType } from "dependency-cruiser";
import { cruise } from "dependency-cruiser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/*
 * The import rules of .dependency-cruiser.cjs, proved on probes: a tree of small files under a temporary
 * `src/`, laid out like the real one, each importing one module a rule forbids. The real tree is checked
 * by `npm run check:imports`; this shows that the rules it runs would catch each of these imports, so a
 * rule that matched no path (a typo, a folder renamed) cannot pass silently.
 */
const config = createRequire(import.meta.url)("../../.dependency-cruiser.cjs") as {
  forbidden: IForbiddenRuleType[];
};

interface IProbe {
  rule: string;
  from: string;
  to: string;
}

/** Each probe imports `to` from `from`; the specifier is relative, as in the real code. */
const forbiddenProbes: IProbe[] = [
  { rule: "api-imports-no-store-or-engine", from: "src/api/routes/probe.ts", to: "src/store/index.ts" },
  { rule: "api-imports-no-store-or-engine", from: "src/api/schemas/probe.ts", to: "src/engine/index.ts" },
  { rule: "store-imports-no-engine", from: "src/store/probe.ts", to: "src/engine/index.ts" },
  { rule: "core-imports-no-shell", from: "src/tools/probe.ts", to: "src/isolation/index.ts" },
  { rule: "core-imports-no-shell", from: "src/contracts/probe.ts", to: "src/isolation/index.ts" },
  {
    rule: "runtime-behind-the-handles",
    from: "src/api/routes/internals-probe.ts",
    to: "src/producer/client-internals.ts",
  },
  { rule: "runtime-behind-the-handles", from: "src/links/probe.ts", to: "src/producer/client-internals.ts" },
  { rule: "runtime-behind-the-handles", from: "src/cli/probe.ts", to: "src/workers/worker-internals.ts" },
];

/** Imports the rules allow, so that a rule matching everything would fail here. */
const allowedProbes: Omit<IProbe, "rule">[] = [
  { from: "src/api/allowed.ts", to: "src/contracts/index.ts" },
  { from: "src/api/producer-allowed.ts", to: "src/producer/index.ts" },
  { from: "src/store/allowed.ts", to: "src/contracts/index.ts" },
  { from: "src/workers/allowed.ts", to: "src/isolation/index.ts" },
  { from: "src/producer/client-port.ts", to: "src/producer/client-internals.ts" },
  { from: "src/workers/start-worker.ts", to: "src/workers/worker-internals.ts" },
];

/** Probes importing node:module (createRequire): in the core only load-ajv.ts may, to load ajv on first use. */
const builtinProbes: Array<{ from: string; rules: Array<{ rule: string; to: string }> }> = [
  { from: "src/output/require-probe.ts", rules: [{ rule: "core-requires-ajv-only", to: "module" }] },
  { from: "src/tools/load-ajv.ts", rules: [] },
];

function specifierFrom(from: string, to: string): string {
  const up = dirname(from)
    .split("/")
    .map(() => "..");
  return `${up.join("/")}/${to.replace(/\.ts$/, ".js")}`;
}

function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

describe("import rules (.dependency-cruiser.cjs) on probe imports", () => {
  let root: string;
  let result: ICruiseResult;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "tollgate-import-rules-"));
    const targets = new Set([...forbiddenProbes, ...allowedProbes].map((probe) => probe.to));
    for (const target of targets) write(root, target, "export const probeTarget = 1;\n");
    for (const probe of [...forbiddenProbes, ...allowedProbes]) {
      write(root, probe.from, `export { probeTarget } from "${specifierFrom(probe.from, probe.to)}";\n`);
    }
    for (const probe of builtinProbes) {
      write(root, probe.from, 'export { createRequire } from "node:module";\n');
    }
    // The probe files name their imports `.js`, as the real code does: TypeScript's rule maps them to `.ts`.
    write(
      root,
      "tsconfig.json",
      JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext" } }),
    );
    const cruised = await cruise(
      ["src"],
      {
        baseDir: root,
        validate: true,
        ruleSet: { forbidden: config.forbidden },
        tsPreCompilationDeps: true,
        tsConfig: { fileName: join(root, "tsconfig.json") },
      },
      { extensionAlias: { ".js": [".ts", ".js"] } },
    );
    result = cruised.output as ICruiseResult;
  });

  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  function violationsFrom(from: string) {
    return result.summary.violations
      .filter((violation) => violation.from === from)
      .map((violation) => ({ rule: violation.rule.name, to: violation.to }));
  }

  it.each(forbiddenProbes)("$from → $to breaks $rule", ({ rule, from, to }) => {
    expect(violationsFrom(from)).toEqual([{ rule, to }]);
  });

  it.each(allowedProbes)("$from → $to is allowed", ({ from }) => {
    expect(violationsFrom(from)).toEqual([]);
  });

  it.each(builtinProbes)("$from → node:module breaks $rules", ({ from, rules }) => {
    expect(violationsFrom(from)).toEqual(rules);
  });

  it("resolves every probe import (a probe that resolved nowhere would prove nothing)", () => {
    const unresolved = result.modules.flatMap((module) =>
      module.dependencies.filter((dependency) => dependency.couldNotResolve).map((d) => d.module),
    );
    expect(unresolved).toEqual([]);
  });
});
