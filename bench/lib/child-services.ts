import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { IBuiltWorker } from "./built-worker.js";
import { stopChild } from "./private-redis.js";

const cli = fileURLToPath(new URL("../../bin/tollgate.js", import.meta.url));
const floorWorkerPath = fileURLToPath(new URL("../floor-worker-process.ts", import.meta.url));
const floorRecordsWorkerPath = fileURLToPath(new URL("../floor-records-worker-process.ts", import.meta.url));
export const benchGatewayPath = fileURLToPath(new URL("../bench-gateway.ts", import.meta.url));

export interface IChildService {
  pid: number;
  /** The first stdout line that matched the readiness pattern. */
  readyLine: string;
  /** The last 4,000 characters it wrote to stderr: warnings a bench reports instead of dropping. */
  stderrTail(): string;
  stop(): Promise<void>;
}

/**
 * Starts `tollgate <args>` as a child process (what an operator runs) and resolves once a line of its
 * stdout matches `ready`. Its stdout is read and dropped, so that logging costs what it costs in
 * production (serialized and written) without filling a pipe; the tail of its stderr is kept.
 */
export function startCli(
  args: readonly string[],
  env: Record<string, string>,
  ready: RegExp,
  entry: string = cli,
): Promise<IChildService> {
  return startNode([entry, ...args], env, ready, `tollgate ${args[0]}`);
}

/** `node <nodeArgs>` as a child process, ready once a line of its stdout matches `ready` (as startCli). */
async function startNode(
  nodeArgs: readonly string[],
  env: Record<string, string>,
  ready: RegExp,
  label: string,
): Promise<IChildService> {
  const child = spawn(process.execPath, nodeArgs, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4_000);
  });
  const readyLine = await new Promise<string>((resolve, reject) => {
    let pending = "";
    let found = false;
    child.stdout!.on("data", (chunk: Buffer) => {
      if (found) return;
      pending += chunk.toString("utf8");
      const line = pending.split("\n").find((candidate) => ready.test(candidate));
      if (line !== undefined) {
        found = true;
        resolve(line);
      }
      pending = pending.slice(-4_000);
    });
    child.once("exit", (code) =>
      reject(new Error(`${label} exited (${code}) before it was ready:\n${stderr}`)),
    );
  });
  return {
    pid: child.pid!,
    readyLine,
    stderrTail: () => stderr,
    stop: () => stopChild(child as ChildProcess),
  };
}

/** Node flags for the worker processes only (not the bench's own), e.g. a young generation size. */
function workerNodeOptions(): Record<string, string> {
  const options = process.env.BENCH_WORKER_NODE_OPTIONS;
  return options !== undefined ? { NODE_OPTIONS: options } : {};
}

/** The floor's workers in a process of their own, run from source through tsx as the CLI worker is. */
export function startFloorWorkerProcess(options: IFloorProcessOptions): Promise<IChildService> {
  return startFloorProcess(floorWorkerPath, options, {}, /floor workers ready/, "the floor's worker process");
}

/** The workers of the floor with records in a process of their own, as the floor's (above). */
export function startFloorRecordsWorkerProcess(
  options: IFloorProcessOptions & { streaming?: boolean },
): Promise<IChildService> {
  return startFloorProcess(
    floorRecordsWorkerPath,
    options,
    { FLOOR_STREAMING: options.streaming === false ? "off" : "on" },
    /floor records workers ready/,
    "the floor with records' worker process",
  );
}

interface IFloorProcessOptions {
  redisUrl: string;
  modelUrl: string;
  prefix: string;
  concurrency: number;
}

function startFloorProcess(
  path: string,
  options: IFloorProcessOptions,
  environment: Record<string, string>,
  ready: RegExp,
  label: string,
): Promise<IChildService> {
  return startNode(
    ["--import", "tsx", path],
    {
      REDIS_URL: options.redisUrl,
      MODEL_URL: options.modelUrl,
      FLOOR_PREFIX: options.prefix,
      FLOOR_CONCURRENCY: String(options.concurrency),
      ...environment,
      ...workerNodeOptions(),
    },
    ready,
    label,
  );
}

/** The scripted model in a process of its own: its CPU is nobody's contender's. */
export async function startModelServer(): Promise<IChildService & { url: string }> {
  const service = await startCli(["model-server", "--port", "0"], {}, /listening on http/);
  const url = /(http:\/\/\S+)/.exec(service.readyLine)![1]!;
  return { ...service, url };
}

/**
 * `tollgate worker` for the bench gateway, with its logs (info) and metrics (a free port) on: through
 * bin/tollgate.js, or the compiled CLI with a JavaScript gateway when `built` is given.
 */
export function startCliWorker(options: {
  redisUrl: string;
  prefix: string;
  modelUrl: string;
  concurrency: number;
  built?: IBuiltWorker | undefined;
}): Promise<IChildService> {
  return startCli(
    [
      "worker",
      "--gateway",
      options.built?.gatewayPath ?? benchGatewayPath,
      "--concurrency",
      String(options.concurrency),
      "--metrics-port",
      "0",
    ],
    {
      REDIS_URL: options.redisUrl,
      TOLLGATE_PREFIX: options.prefix,
      OPENAI_BASE_URL: options.modelUrl,
      LOG_LEVEL: "info",
      ...workerNodeOptions(),
    },
    /worker metrics at \/metrics/,
    options.built?.entry,
  );
}
