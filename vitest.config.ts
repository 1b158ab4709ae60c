import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { SkippedSuitesReporter } from "./test/reporters/skipped-suites-reporter.js";
import { slowSuiteFiles } from "./test/slow-suites.js";

export default defineConfig({
  // examples/ import the library by its name: in tests that is the source, not a dist/ that may be stale.
  resolve: {
    alias: [{ find: /^tollgate$/, replacement: fileURLToPath(new URL("src/index.ts", import.meta.url)) }],
  },
  test: {
    globalSetup: ["test/global-setup.ts"],
    // The default report, then a line for each suite skipped for want of an environment, with its command.
    reporters: ["default", new SkippedSuitesReporter()],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    coverage: {
      provider: "v8",
      include: ["src/tools/**", "src/policy/**", "src/engine/**"],
      reporter: ["text", "text-summary"],
    },
    projects: [
      {
        extends: true,
        // Pure and fast: worker threads start quicker than processes.
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts", "test/types/**/*.test.ts"],
          pool: "threads",
          maxWorkers: 2,
          // Projects with different worker counts run one after another, in this order.
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        // Real Redis, BullMQ, HTTP and child processes: a process per file, each test with its own prefix.
        // One file at a time: three at once with a fork's modules kept from file to file took `npm test`
        // to 3 minutes, but 3 of 4 runs failed a different test each (a timed wait, a 30 s Sentinel test,
        // a memory bound), so that waits for those tests to hold under load (docs/BENCHMARKS.md).
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts", "test/e2e/**/*.test.ts"],
          exclude: slowSuiteFiles,
          pool: "forks",
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        // As integration, but slow: killed processes, Redis faults, walkthroughs, installs, loads
        // (test/slow-suites.ts). `npm run test:full` runs them; `npm test` does not.
        test: {
          name: "slow",
          include: slowSuiteFiles,
          pool: "forks",
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        // The console in Debian's headless chromium (playwright-core) against the real API and worker.
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          pool: "forks",
          sequence: { groupOrder: 3 },
        },
      },
      {
        extends: true,
        // The fault suite: real processes killed and paused, a private redis-server per file (ports
        // 7600-7699). Quick by default; CHAOS_PROFILE=long (npm run chaos) for the published figures.
        test: {
          name: "chaos",
          include: ["test/chaos/**/*.test.ts"],
          pool: "forks",
          sequence: { groupOrder: 4 },
          testTimeout: process.env.CHAOS_PROFILE === "long" ? 1_800_000 : 150_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
