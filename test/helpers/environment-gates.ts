import { execFileSync } from "node:child_process";
import { testClusterNodes } from "./redis-url.js";

/**
 * A suite that needs more than `npm test` sets up (a Redis Cluster, Sentinel, a program on the PATH): it is
 * skipped without it, and the run says so at its end, with the command that runs it
 * (test/reporters/skipped-suites-reporter.ts reads the gate from the suite's meta).
 */
export interface IEnvironmentGate {
  /** What the suite needs, as the run's last lines say it. */
  needs: string;
  /** The command that runs it with what it needs. */
  command: string;
}

declare module "vitest" {
  interface TaskMeta {
    environmentGate?: IEnvironmentGate;
  }
}

function hasProgram(name: string): boolean {
  try {
    execFileSync(name, ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** A Redis Cluster of 3 masters and 3 replicas, which `npm run test:cluster` starts and stops. */
export const redisClusterGate: IEnvironmentGate & { available: boolean } = {
  needs: "a Redis Cluster (TOLLGATE_TEST_CLUSTER_NODES)",
  command: "npm run test:cluster",
  available: testClusterNodes !== undefined,
};

/** A primary, a replica and 3 sentinels of its own, which `npm run test:cluster` starts last. */
export const sentinelGate: IEnvironmentGate & { available: boolean } = {
  needs: "Redis Sentinel (TOLLGATE_TEST_SENTINEL=1, with sentinels of its own)",
  command: "npm run test:cluster",
  available: Boolean(process.env.TOLLGATE_TEST_SENTINEL),
};

/** redis-server on the PATH, for what starts one of its own. */
export const redisServerGate: IEnvironmentGate & { available: boolean } = {
  needs: "redis-server on the PATH",
  command: "apt-get install redis-server (macOS: brew install redis), then npm test",
  available: hasProgram("redis-server"),
};

/** The options of a suite or test that runs only where `gate` is available: `describe(name, gatedBy(gate), fn)`. */
export function gatedBy(gate: IEnvironmentGate & { available: boolean }): {
  skip: boolean;
  meta: { environmentGate: IEnvironmentGate };
} {
  return { skip: !gate.available, meta: { environmentGate: { needs: gate.needs, command: gate.command } } };
}
