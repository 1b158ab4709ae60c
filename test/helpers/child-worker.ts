import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { testClusterNodes, testRedisUrl } from "./redis-url.js";

const workerScript = fileURLToPath(new URL("../fixtures/worker-process.ts", import.meta.url));

export interface IChildWorker {
  child: ChildProcess;
  /** Resolves when the worker said it is ready. */
  ready: Promise<void>;
  /** Resolves with the exit code (or the signal) when the process ends. */
  exited: Promise<number | NodeJS.Signals | null>;
  output(): string;
}

/** Starts a real worker process (node --import tsx) on the given prefix. */
export function spawnChildWorker(options: {
  prefix: string;
  modelUrl: string;
  ledgerFile?: string;
  queues?: string;
  /** A fixture gateway module (file URL) instead of the test gateway. */
  gatewayModule?: string;
  /** More environment, e.g. SHUTDOWN_TIMEOUT_MS or another REDIS_URL. */
  env?: Record<string, string>;
  /** Another Redis than the shared test one (the chaos suite's own server). */
  redisUrl?: string;
  /** Runtime settings over the fast ones (a short retention, ...). */
  runtimeOverrides?: Record<string, unknown>;
}): IChildWorker {
  let output = "";
  const child = spawn(process.execPath, ["--import", "tsx", workerScript], {
    env: {
      ...process.env,
      REDIS_URL: options.redisUrl ?? testRedisUrl,
      // The chaos suite's own Redis is a single node, whatever the shared test Redis is.
      TOLLGATE_TEST_CLUSTER_NODES: options.redisUrl ? "" : (testClusterNodes?.join(",") ?? ""),
      RUNTIME_OVERRIDES: JSON.stringify(options.runtimeOverrides ?? {}),
      TOLLGATE_PREFIX: options.prefix,
      MODEL_URL: options.modelUrl,
      LEDGER_FILE: options.ledgerFile ?? "",
      WORKER_QUEUES: options.queues ?? "runs,tools,approvals",
      GATEWAY_MODULE: options.gatewayModule ?? "",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("worker-ready")) resolve();
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("exit", (code) =>
      reject(new Error(`worker exited (${code}) before it was ready:\n${output}`)),
    );
  });
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => {
    child.once("exit", (code, signal) => resolve(signal ?? code));
  });
  return { child, ready, exited, output: () => output };
}

/**
 * Worker processes on a harness's prefix and model, each appending to a ledger file and, given a log
 * message, SIGKILLing itself the moment it logs it (worker-process.ts); `stopAll` ends those still up.
 */
export function killableWorkers(harness: { prefix: string; model: { url: string } }) {
  const children: IChildWorker[] = [];
  return {
    start(ledgerFile: string, killAtLog?: string): IChildWorker {
      const worker = spawnChildWorker({
        prefix: harness.prefix,
        modelUrl: harness.model.url,
        ledgerFile,
        ...(killAtLog !== undefined ? { env: { KILL_AT_LOG: killAtLog } } : {}),
      });
      children.push(worker);
      return worker;
    },
    async stopAll(): Promise<void> {
      for (const child of children.splice(0)) {
        if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill("SIGTERM");
        await child.exited;
      }
    },
  };
}
