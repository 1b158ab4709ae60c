import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { SkippedSuitesReporter } from "./test/reporters/skipped-suites-reporter.js";

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
        },
      },
      {
        extends: true,
        // Real Redis, BullMQ, HTTP and child processes: a process per file, each test with its own prefix.
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts", "test/e2e/**/*.test.ts"],
          pool: "forks",
        },
      },
      {
        extends: true,
        // The console in Debian's headless chromium (playwright-core) against the real API and worker.
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          pool: "forks",
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
          testTimeout: process.env.CHAOS_PROFILE === "long" ? 1_800_000 : 150_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
