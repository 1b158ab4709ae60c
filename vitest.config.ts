import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["test/global-setup.ts"],
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
    ],
  },
});
