import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CliError } from "../cli-errors.js";
import { redisAnswers } from "../redis/redis-ping.js";
import { freePort } from "./free-port.js";

export interface IPrivateRedis {
  url: string;
  stop(): Promise<void>;
}

export const redisInstallHint =
  "install Redis 6.2 or newer (Debian/Ubuntu: `apt-get install redis-server`; macOS: `brew install redis`), " +
  "or run one with Docker (`docker run -d -p 6379:6379 redis:7`) and set REDIS_URL";

/**
 * Starts a throwaway redis-server for the demo: a free port on 127.0.0.1, no persistence, its files in
 * a temporary directory that stop() removes.
 */
export async function startPrivateRedis(
  options: { timeoutMs?: number; command?: string } = {},
): Promise<IPrivateRedis> {
  const { timeoutMs = 5_000, command = "redis-server" } = options;
  const port = await freePort();
  const directory = await mkdtemp(join(tmpdir(), "tollgate-demo-redis-"));
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
  const child = spawn(command, [...args, "--dir", directory], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-2_000);
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-2_000);
  });
  const url = `redis://127.0.0.1:${port}`;
  const stop = async () => {
    await stopChild(child);
    await rm(directory, { recursive: true, force: true });
  };
  try {
    await waitUntilReady(child, url, timeoutMs);
  } catch (error) {
    await stop();
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new CliError(
        `no Redis answers at 127.0.0.1:6379 and there is no redis-server to start: ${redisInstallHint}`,
      );
    }
    throw new CliError(
      `the demo's redis-server did not start: ${error instanceof Error ? error.message : String(error)}\n${output.trim()}`,
    );
  }
  return { url, stop };
}

async function waitUntilReady(child: ChildProcess, url: string, timeoutMs: number): Promise<void> {
  let failure: Error | undefined;
  child.once("error", (error) => {
    failure = error;
  });
  child.once("exit", (code) => {
    failure ??= new Error(`redis-server exited with code ${code}`);
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (failure) throw failure;
    if (await redisAnswers(url, 200)) return;
    if (Date.now() > deadline) throw new Error(`no answer at ${url} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
  await exited;
  clearTimeout(timer);
}
