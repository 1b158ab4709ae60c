import { execFile } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childEnvironment, repositoryRoot } from "./cli-process.js";

const run = promisify(execFile);

/**
 * A fresh checkout as `npm install` leaves it, and a project that installed the packed package. The
 * checkout is a copy of the files a clone has (the repository's node_modules linked in, so no
 * download): `npm pack` runs the `prepare` build there, as `npm install` and `npm ci` do in a clone.
 */
let workspace: string;
let checkout: string;
let project: string;
/** Importing the package by its name in the checkout right after `prepare`, before anything else built. */
let checkoutImport: { code: number; stdout: string; stderr: string };

/** What a user's CommonJS code reads when it requires the package: the error names the way out. */
const requireAdvice = /tollgate is an ES module[\s\S]*await import\("tollgate"\)[\s\S]*"type": "module"/;

beforeAll(async () => {
  workspace = mkdtempSync(join(tmpdir(), "tollgate-pack-"));
  checkout = join(workspace, "checkout");
  mkdirSync(checkout);
  for (const entry of [
    "package.json",
    "package-lock.json",
    "tsconfig.json",
    "tsconfig.build.json",
    "README.md",
    "require.cjs",
    "src",
    "bin",
    "console",
    "examples",
    "scripts",
  ]) {
    if (existsSync(join(repositoryRoot, entry)))
      cpSync(join(repositoryRoot, entry), join(checkout, entry), { recursive: true });
  }
  symlinkSync(join(repositoryRoot, "node_modules"), join(checkout, "node_modules"), "dir");
  // What `npm install` and `npm ci` run in a clone once the dependencies are in.
  await run("npm", ["run", "prepare", "--silent"], { cwd: checkout, env: childEnvironment({}) });
  checkoutImport = await node(
    ["--input-type=module", "-e", 'const t = await import("tollgate"); console.log(typeof t.defineGateway);'],
    checkout,
  );
  const packed = await run("npm", ["pack", "--pack-destination", workspace, "--silent"], {
    cwd: checkout,
    env: childEnvironment({}),
  });
  const tarball = join(workspace, packed.stdout.trim().split("\n").at(-1) ?? "");

  // The installed package, its dependencies linked from the repository's node_modules (what
  // `npm i <tarball>` would download).
  project = join(workspace, "project");
  const installed = join(project, "node_modules", "tollgate");
  mkdirSync(installed, { recursive: true });
  await run("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"]);
  for (const name of readdirSync(join(repositoryRoot, "node_modules"))) {
    if (name.startsWith(".")) continue;
    symlinkSync(join(repositoryRoot, "node_modules", name), join(project, "node_modules", name), "dir");
  }
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "a-user-project", private: true }));
}, 240_000);

afterAll(() => {
  if (workspace !== undefined) rmSync(workspace, { recursive: true, force: true });
});

function node(args: readonly string[], cwd: string, env: Record<string, string> = {}) {
  return run(process.execPath, [...args], { cwd, env: childEnvironment(env) }).then(
    (result) => ({ code: 0, ...result }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

describe("the package as a newcomer gets it", () => {
  it("npm install in a clone builds dist (prepare), so the checkout imports itself as tollgate", () => {
    expect(checkoutImport.stderr).toBe("");
    expect(checkoutImport.stdout.trim()).toBe("function");
  });

  it("the packed package carries the compiled library with its declarations (prepack)", () => {
    for (const file of [
      "dist/index.js",
      "dist/index.d.ts",
      "dist/cli/main.js",
      "require.cjs",
      "bin/tollgate.js",
    ]) {
      expect(existsSync(join(project, "node_modules", "tollgate", file)), file).toBe(true);
    }
  });

  it("the bundled example imports tollgate by name and loads with plain node and tsx", async () => {
    const result = await node(
      [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        'const m = await import("./examples/support-desk/gateway.ts"); const t = await import("tollgate"); console.log(t.isGateway(m.default));',
      ],
      checkout,
    );
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe("true");
  });

  it("a project that installed the packed package imports it from an ES module", async () => {
    writeFileSync(
      join(project, "gateway.mjs"),
      'import { defineGateway, isGateway } from "tollgate";\nconsole.log(isGateway(defineGateway({ tools: [] })));\n',
    );
    const result = await node(["gateway.mjs"], project);
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe("true");
  });

  it('require("tollgate") from CommonJS fails with an error that says what to change', async () => {
    writeFileSync(join(project, "service.cjs"), 'require("tollgate");\n');
    const result = await node(["service.cjs"], project);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(requireAdvice);
    expect(result.stderr).toContain("ERR_REQUIRE_ESM");
  });

  it("the CLI loading a TypeScript gateway of a CommonJS project says the same", async () => {
    // No "type": "module" in the project: tsx compiles the file to CommonJS, so its import is a require().
    writeFileSync(
      join(project, "gateway.ts"),
      'import { defineGateway } from "tollgate";\nexport default defineGateway({ tools: [] });\n',
    );
    const result = await node(
      ["node_modules/tollgate/bin/tollgate.js", "worker", "--gateway", "gateway.ts"],
      project,
      { OPENAI_BASE_URL: "http://127.0.0.1:9/v1", REDIS_URL: "redis://127.0.0.1:9" },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`could not load the gateway module ${join(project, "gateway.ts")}`);
    expect(result.stderr).toMatch(requireAdvice);
  });

  it("the CLI loading a CommonJS gateway names the file and the change to make", async () => {
    writeFileSync(
      join(project, "gateway.cjs"),
      'const { defineGateway } = require("tollgate");\nmodule.exports = defineGateway({ tools: [] });\n',
    );
    const result = await node(
      ["node_modules/tollgate/bin/tollgate.js", "worker", "--gateway", "gateway.cjs"],
      project,
      // The gateway is loaded before anything connects: neither is reached.
      { OPENAI_BASE_URL: "http://127.0.0.1:9/v1", REDIS_URL: "redis://127.0.0.1:9" },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`could not load the gateway module ${join(project, "gateway.cjs")}`);
    expect(result.stderr).toMatch(requireAdvice);
  });
});
