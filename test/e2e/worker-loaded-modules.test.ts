import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testGateway } from "../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../helpers/harness.js";
import { testRedisUrl } from "../helpers/redis-url.js";
import { script } from "../helpers/script.js";
import { type ICliProcess, logFields, startCli } from "./cli-process.js";

/**
 * What only some deployments use is loaded only when they use it (docs/BENCHMARKS.md, "Worker memory"): a
 * `tollgate worker` process whose gateway mounts no MCP server, has no JSON Schema tool input nor output
 * schema, with tracing off, does a run with a tool call and never loads the MCP SDK, ajv (nor re2js and
 * regexpp, which run its patterns) or bullmq-otel; nor does any worker load the scripted model server, nor
 * the HTTP API's server (fastify) and JWT library (jose), though its gateway imports the package's root as
 * users' gateways do.
 */
const lazyPackages = [
  "@modelcontextprotocol/sdk",
  "ajv",
  "ajv-formats",
  "re2js",
  "@eslint-community/regexpp",
  "zod-to-json-schema",
  "bullmq-otel",
  "@opentelemetry/sdk-trace-base",
  "fastify",
  "fastify-type-provider-zod",
  "jose",
];

/**
 * Tollgate's own modules a worker never runs: the scripted model server (the walkthrough's and the tests'
 * model, `tollgate model-server`), once loaded by every worker through the model barrel.
 */
const unusedOwnModules = /\/src\/model\/scripted\//;

function packageOf(moduleId: string): string | undefined {
  return /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(moduleId)?.[1];
}

describe("a worker that mounts no MCP server, compiles no JSON Schema and traces nothing", () => {
  let harness: IHarness;
  let worker: ICliProcess;
  const loadedFile = join(mkdtempSync(join(tmpdir(), "tollgate-loaded-")), "modules.txt");

  beforeAll(async () => {
    harness = await createHarness(testGateway, "loaded-modules");
    worker = startCli(
      ["worker", "--gateway", "test/fixtures/package-root-gateway.ts", "--metrics-port", "0"],
      {
        REDIS_URL: testRedisUrl,
        TOLLGATE_PREFIX: harness.prefix,
        OPENAI_BASE_URL: harness.model.url,
        LOG_LEVEL: "info",
        LOADED_MODULES_FILE: loadedFile,
        NODE_OPTIONS: "--import ./test/fixtures/record-loaded-modules.mjs",
      },
    );
    await worker.waitForLine((line) => logFields(line)?.msg === "worker started");
  });

  afterAll(async () => {
    await worker?.stop("SIGKILL");
    await harness?.close();
  });

  it("runs a tool call without loading the MCP SDK, ajv, bullmq-otel, the scripted model server or the API's server", async () => {
    const response = await harness.client.ask({
      input: script({ calls: [{ name: "work", input: { label: "lazy" } }] }, { text: "done" }),
      userContext: { userId: "loaded-modules" },
    });
    expect(response.status).toBe("completed");
    expect(await worker.stop("SIGTERM")).toEqual({ code: 0, signal: null });
    const moduleIds = readFileSync(loadedFile, "utf8").split("\n");
    const loaded = new Set(moduleIds.map(packageOf).filter((name) => name !== undefined));
    // The recorder saw the packages every worker loads, ES modules and CommonJS.
    expect(loaded).toContain("bullmq");
    expect(loaded).toContain("openai");
    expect(lazyPackages.filter((name) => loaded.has(name))).toEqual([]);
    expect(moduleIds.some((id) => id.includes("/src/workers/run-processor."))).toBe(true);
    expect(moduleIds.some((id) => id.includes("/src/index."))).toBe(true);
    expect(moduleIds.filter((id) => unusedOwnModules.test(id))).toEqual([]);
  }, 60_000);
});
