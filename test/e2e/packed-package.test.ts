import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testRedisUrl } from "../helpers/redis-url.js";
import { script } from "../helpers/script.js";
import { deletePrefix, uniquePrefix } from "../helpers/test-prefix.js";
import { waitUntil } from "../helpers/wait-until.js";
import {
  childEnvironment,
  type ICliProcess,
  logFields,
  repositoryRoot,
  startProcess,
} from "./cli-process.js";

const run = promisify(execFile);

/**
 * A fresh checkout as `npm install` leaves it, and a project that installed the packed package with
 * `npm install <tarball>`. The checkout is a copy of the files a clone has (the repository's node_modules
 * linked in, so no download): `npm pack` runs the `prepare` build there, as `npm install` and `npm ci` do
 * in a clone.
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

  // A project of its own installs the tarball as a user would: npm resolves its dependencies (from the
  // cache `npm ci` filled, else the registry), links its bin (what `npx tollgate` finds) and makes it
  // executable.
  project = join(workspace, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "a-user-project", private: true }));
  await run("npm", ["install", tarball, "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: project,
    env: childEnvironment({}),
  });
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

  it("a CommonJS file of the project loads it with import(), as the require() error advises", async () => {
    writeFileSync(
      join(project, "service-import.cjs"),
      'import("tollgate").then((t) => console.log(typeof t.GatewayClient, typeof t.startWorker));\n',
    );
    const result = await node(["service-import.cjs"], project);
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe("function function");
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

/**
 * The installed package as a user's project runs it: `npx tollgate model-server`, `worker` and `api` from
 * the project's directory (node_modules/.bin, nothing of the checkout), with a gateway module of the
 * project's own, and a run through the API that calls the project's tool.
 */
describe("npx tollgate in a project that installed the packed package", () => {
  const prefix = uniquePrefix("e2e-packed");
  const token = randomBytes(24).toString("base64url");
  const processes: ICliProcess[] = [];
  let apiUrl = "";

  /** `npx tollgate <args>` in the project, stopped with the node process npx runs. */
  const npxTollgate = (args: readonly string[], env: Record<string, string>) => {
    const started = startProcess("npx", ["--no", "tollgate", ...args], env, { cwd: project, group: true });
    processes.push(started);
    return started;
  };
  /** Whether a process of the group (npx and the node it runs) is still there. */
  const groupRuns = (group: number) => {
    try {
      process.kill(-group, 0);
      return true;
    } catch {
      return false;
    }
  };
  const logLine = (message: string) => (line: string) => logFields(line)?.msg === message;

  beforeAll(async () => {
    writeFileSync(
      join(project, "desk-gateway.mjs"),
      [
        'import { defineGateway, defineTool } from "tollgate";',
        'import { z } from "zod";',
        "",
        "export default defineGateway({",
        '  name: "desk",',
        "  tools: [",
        "    defineTool({",
        '      name: "shout",',
        '      description: "Says a word louder.",',
        "      inputSchema: z.object({ word: z.string() }),",
        "      readOnly: true,",
        '      execute: async ({ input }) => ({ shouted: input.word.toUpperCase() + "!" }),',
        "    }),",
        "  ],",
        "});",
        "",
      ].join("\n"),
    );
    const model = npxTollgate(["model-server", "--port", "0"], {});
    const modelLine = await model.waitForLine((line) => line.includes("listening on http"), 60_000);
    const modelUrl = modelLine.slice(modelLine.indexOf("http"));
    const shared = { REDIS_URL: testRedisUrl, TOLLGATE_PREFIX: prefix, LOG_LEVEL: "info" };
    const worker = npxTollgate(["worker", "--gateway", "desk-gateway.mjs", "--metrics-port", "0"], {
      ...shared,
      OPENAI_BASE_URL: modelUrl,
    });
    const api = npxTollgate(["api", "--gateway", "desk-gateway.mjs", "--port", "0"], {
      ...shared,
      TOLLGATE_API_TOKENS: JSON.stringify([{ token, subject: "project-service", roles: ["runs:write"] }]),
    });
    await worker.waitForLine(logLine("worker metrics at /metrics"), 60_000);
    apiUrl = String(logFields(await api.waitForLine(logLine("tollgate api listening"), 60_000))?.url);
    await waitUntil(async () => (await fetch(`${apiUrl}/readyz`).catch(() => undefined))?.ok, {
      message: "GET /readyz answers 200",
    });
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled(processes.map((started) => started.stop("SIGKILL")));
    await deletePrefix(prefix);
  });

  it("completes a run through the API that calls the project's own tool", async () => {
    const response = await fetch(`${apiUrl}/v1/ask`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        input: script({ calls: [{ name: "shout", input: { word: "hello" } }] }, { text: "Shouted it." }),
        timeoutMs: 30_000,
      }),
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as {
      status: string;
      text: string;
      toolResults: Array<{ toolName: string; output: unknown }>;
    };
    expect(answer).toMatchObject({ status: "completed", text: "Shouted it." });
    expect(answer.toolResults).toEqual([
      expect.objectContaining({ toolName: "shout", output: { shouted: "HELLO!" } }),
    ]);
  });

  it("stops on SIGTERM as a terminal's signal stops it: the worker drains, the API closes, nothing is left", async () => {
    const [, worker, api] = processes;
    for (const started of [worker, api]) await started?.stop("SIGTERM");
    for (const started of [worker, api]) {
      const group = started?.child.pid ?? 0;
      await waitUntil(() => !groupRuns(group), {
        timeoutMs: 30_000,
        message: `process group ${group} ended`,
      });
    }
    expect(worker?.output()).toContain("stopping: no new jobs; waiting for active ones");
    expect(api?.output()).toContain("tollgate api stopped");
  });
});
