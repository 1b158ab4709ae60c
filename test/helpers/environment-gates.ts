import { execFileSync } from "node:child_process";
import { pythonCanInstall, pythonExecutable } from "./python.js";
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

/** A python3 of 3.9 or later, for the Python client's suite (clients/python); looked for when first asked. */
export const python3Gate: IEnvironmentGate & { readonly available: boolean } = {
  needs: "python3 3.9 or later (TOLLGATE_TEST_PYTHON, /usr/bin/python3 or on the PATH)",
  command: "apt-get install python3 (or bash scripts/ensure-python.sh), then npm run test:python",
  get available() {
    return pythonExecutable() !== undefined;
  },
};

/** pip, setuptools, wheel and venv beside that python3, to install the Python client offline. */
export const pythonInstallGate: IEnvironmentGate & { readonly available: boolean } = {
  needs: "python3 with pip, setuptools, wheel and venv",
  command:
    "apt-get install python3-pip python3-setuptools python3-wheel python3-venv (or bash scripts/ensure-python.sh), then npm test",
  get available() {
    const python = pythonExecutable();
    return python !== undefined && pythonCanInstall(python);
  },
};

/** The options of a suite or test that runs only where `gate` is available: `describe(name, gatedBy(gate), fn)`. */
export function gatedBy(gate: IEnvironmentGate & { available: boolean }): {
  skip: boolean;
  meta: { environmentGate: IEnvironmentGate };
} {
  return { skip: !gate.available, meta: { environmentGate: { needs: gate.needs, command: gate.command } } };
}
