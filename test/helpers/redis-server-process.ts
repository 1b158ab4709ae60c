import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { redisAnswers } from "../../src/cli/redis/redis-ping.js";
import { waitUntil } from "./wait-until.js";

export interface IRedisServerProcess {
  port: number;
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * A private redis-server with the given settings (eviction policy, cluster mode, ACL users, ...) on
 * the first free loopback port from TOLLGATE_TEST_PORT_BASE (7020 unless set), no persistence; stop()
 * ends it and removes its files. For tests of how Tollgate treats the server it is given.
 */
export async function startRedisServer(
  args: string[] = [],
  /** A config file, read first (a sentinel needs one it can rewrite). */
  configFile?: string,
): Promise<IRedisServerProcess> {
  const base = Number(process.env.TOLLGATE_TEST_PORT_BASE ?? 7020);
  // Test files run in parallel: a port found free may be taken before the server binds it; then the
  // server exits at once and the next free port is tried.
  for (let attempt = 0; attempt < 10; attempt++) {
    const started = await tryStart(await firstFreePort(base + attempt * 3), args, configFile);
    if (started) return started;
  }
  throw new Error("redis-server did not start on any free port");
}

async function tryStart(
  port: number,
  args: string[],
  configFile: string | undefined,
): Promise<IRedisServerProcess | undefined> {
  const directory = await mkdtemp(join(tmpdir(), "tollgate-test-redis-"));
  const command = process.env.TOLLGATE_TEST_REDIS_SERVER ?? "redis-server";
  const serverArgs = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
  const child = spawn(
    command,
    [...(configFile ? [configFile] : []), ...serverArgs, "--dir", directory, ...args],
    { stdio: "ignore" },
  );
  const url = `redis://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
    await rm(directory, { recursive: true, force: true });
  };
  // A server whose default user needs a password answers PING with NOAUTH: the port being taken by
  // our live child is enough.
  const up = await waitUntil(
    async () => {
      if (child.exitCode !== null || child.signalCode !== null) return "exited";
      return (await redisAnswers(url)) || (await portTaken(port)) ? "up" : false;
    },
    { message: `redis-server on ${port}`, timeoutMs: 10_000 },
  );
  if (up === "up") return { port, url, child, stop };
  await stop();
  return undefined;
}

async function firstFreePort(base: number): Promise<number> {
  for (let port = base; port < base + 1000; port++) {
    // Cluster tests also need the bus port (+10000) free.
    if (!(await portTaken(port)) && !(await portTaken(port + 10_000))) return port;
  }
  throw new Error(`no free port from ${base}`);
}

function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(true));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(false)));
  });
}
