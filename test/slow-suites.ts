/**
 * The suites `npm test` leaves to `npm run test:full` (and `.ci/run`): each spends seconds on real
 * processes killed or restarted, Redis paused or stopped, a whole walkthrough, an install, or a load. A
 * change to the runtime is still covered by `npm test` (the same paths run there on quiet parts); these
 * show what survives the faults. Memory measured by a test runs here too, in a process of its own: the
 * integration project's forks keep other files' modules and heap. The browser and chaos projects are left to it as well.
 * Measured on the 2-core machine (docs/BENCHMARKS.md, "The test suites"): together 400 s of the
 * integration project's 600.
 */
export const slowSuites: Record<string, string[]> = {
  "killed, restarted or blocked processes": [
    "test/integration/notifications/worker-death.test.ts",
    "test/integration/runtime/shutdown.test.ts",
    "test/integration/runtime/crash.test.ts",
    "test/integration/runtime/crash-checkpoint-transaction.test.ts",
    "test/integration/approvals/crash-park-transaction.test.ts",
    "test/integration/approvals/crash-decision-transaction.test.ts",
    "test/integration/streaming/streaming-crash.test.ts",
    "test/integration/approvals/approvals-survive-restart.test.ts",
    "test/integration/runtime/tool-isolation.test.ts",
  ],
  "Redis paused, stalled or stopped": [
    "test/integration/api/redis-pause-budget.test.ts",
    "test/integration/runtime/client-connection-stall.test.ts",
    "test/e2e/api-redis-stall.test.ts",
    "test/e2e/worker-redis-down.test.ts",
    "test/e2e/liveness-redis.test.ts",
  ],
  "whole walkthroughs, installs and other programs": [
    "test/e2e/readme-walkthrough.test.ts",
    "test/e2e/python-client.test.ts",
    "test/e2e/packed-package.test.ts",
    "test/e2e/skipped-suites-report.test.ts",
    "test/integration/cli/cli-on-terminal.test.ts",
  ],
  "memory measured in the test's own process": [
    "test/integration/model/llm-client-memory.test.ts",
    "test/integration/api/sse-stalled-clients.test.ts",
  ],
  loads: [
    "test/integration/runtime/run-listing-size.test.ts",
    "test/integration/runtime/tenant-limits.test.ts",
  ],
};

/** Every slow suite, as the integration project's exclude and the slow project's include. */
export const slowSuiteFiles: string[] = Object.values(slowSuites).flat();
