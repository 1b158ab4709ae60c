import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests share one Redis server; each test uses its own queue prefix.
    pool: "forks",
    coverage: {
      provider: "v8",
      include: ["src/tools/**", "src/policy/**", "src/engine/**"],
      reporter: ["text", "text-summary"],
    },
  },
});
