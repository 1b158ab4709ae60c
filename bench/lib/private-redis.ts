import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { Redis } from "ioredis";

/** The ports this benchmark may use for its own redis-server (shared machine: others use theirs). */
const firstPort = Number(process.env.BENCH_REDIS_FIRST_PORT ?? 7300);
const lastPort = Number(process.env.BENCH_REDIS_LAST_PORT ?? 7399);
/**
 * Extra redis-server settings, `name value` pairs separated by spaces (`stream-node-max-bytes 1024`):
 * for measuring what a server setting changes, e.g. the parked run's bytes.
 */
const extraSettings = (process.env.BENCH_REDIS_SETTINGS ?? "")
  .split(/\s+/)
  .filter((word) => word !== "")
  .map((word, index) => (index % 2 === 0 ? `--${word}` : word));

export interface IPrivateRedis {
  url: string;
  port: number;
  pid: number;
  /** A connection for the benchmark's own reads (INFO, MEMORY USAGE). */
  redis: Redis;
  stop(): Promise<void>;
}

/**
 * A private redis-server with nothing on disk (no RDB, no AOF, its working directory /tmp), on the
 * first free port of the benchmark's range: every contender shares it, nothing else does.
 */
export async function startPrivateRedis(): Promise<IPrivateRedis> {
  for (let port = firstPort; port <= lastPort; port++) {
    const started = await tryPort(port);
    if (started) return started;
  }
  throw new Error(`no free port for redis-server in ${firstPort}-${lastPort}`);
}

async function tryPort(port: number): Promise<IPrivateRedis | undefined> {
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
  const child = spawn(
    "redis-server",
    [...args, "--dir", "/tmp", "--maxmemory-policy", "noeviction", ...extraSettings],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString("utf8");
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const outcome = await Promise.race([
    once(child, "exit").then(() => "exited" as const),
    waitForOutput(() => output, "Ready to accept connections").then(() => "ready" as const),
  ]);
  if (outcome === "exited") {
    if (/Address already in use/.test(output)) return undefined;
    throw new Error(`redis-server did not start:\n${output.slice(-2_000)}`);
  }
  child.stdout!.off("data", collect);
  child.stderr!.off("data", collect);
  child.stdout!.resume();
  child.stderr!.resume();
  const url = `redis://127.0.0.1:${port}`;
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  return {
    url,
    port,
    pid: child.pid!,
    redis,
    async stop() {
      redis.disconnect();
      await stopChild(child);
    },
  };
}

async function waitForOutput(read: () => string, text: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!read().includes(text)) {
    if (Date.now() > deadline) throw new Error(`redis-server did not say "${text}" within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}
