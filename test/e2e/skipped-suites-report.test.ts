import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { testRedisUrl } from "../helpers/redis-url.js";
import { slowSuiteFiles, slowSuites } from "../slow-suites.js";
import { childEnvironment, repositoryRoot } from "./cli-process.js";

const run = promisify(execFile);

/**
 * `npm test` on a machine without a Redis Cluster or Sentinel skips their suites: its report ends saying
 * which, why, and the command that runs them. A run of vitest as `npm test` starts it, on two of them.
 */
describe("a test run that skips suites for want of an environment", () => {
  it("ends with a line for each missing environment, its files and the command that runs them", async () => {
    const vitest = await run(
      process.execPath,
      [
        "node_modules/vitest/vitest.mjs",
        "run",
        "test/integration/cluster/failover.test.ts",
        "test/integration/cluster/sentinel-failover.test.ts",
      ],
      // Without TOLLGATE_TEST_CLUSTER_NODES and TOLLGATE_TEST_SENTINEL, as on a developer's machine.
      { cwd: repositoryRoot, env: childEnvironment({ REDIS_URL: testRedisUrl, NO_COLOR: "1" }) },
    );
    const lines = vitest.stdout.split("\n");
    const report = lines.slice(lines.indexOf("Skipped for want of an environment:"));
    expect(report).toEqual([
      "Skipped for want of an environment:",
      "  needs a Redis Cluster (TOLLGATE_TEST_CLUSTER_NODES): test/integration/cluster/failover.test.ts; run with: npm run test:cluster",
      "  needs Redis Sentinel (TOLLGATE_TEST_SENTINEL=1, with sentinels of its own): test/integration/cluster/sentinel-failover.test.ts; run with: npm run test:cluster",
      "",
    ]);
  }, 120_000);

  it("run as npm test runs it (without the slow project), says what it left to npm run test:full", async () => {
    const vitest = await run(
      process.execPath,
      [
        "node_modules/vitest/vitest.mjs",
        "run",
        "--project",
        "unit",
        "--project",
        "integration",
        "test/unit/import-rules.test.ts",
      ],
      { cwd: repositoryRoot, env: childEnvironment({ REDIS_URL: testRedisUrl, NO_COLOR: "1" }) },
    );
    const leftOut = vitest.stdout.split("\n").filter((line) => line.startsWith("Left to npm run test:full:"));
    expect(leftOut).toEqual([
      `Left to npm run test:full: ${slowSuiteFiles.length} slow suites (${Object.keys(slowSuites).join("; ")}: test/slow-suites.ts), the console in chromium and the fault suite.`,
    ]);
  }, 120_000);
});
