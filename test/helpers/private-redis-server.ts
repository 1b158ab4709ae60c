import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { waitUntil } from "./wait-until.js";

export interface IPrivateRedisServer {
  url: string;
  /** The server process, for SIGSTOP/SIGCONT. */
  process: ChildProcess;
  /** A connection of the test's own (CONFIG SET, CLIENT LIST). */
  admin: Redis;
  stop(): Promise<void>;
}

/** Ports tried after the one asked for, this far apart, when another server holds it. */
const portStep = 50;
const attempts = 6;

/**
 * A redis-server of the test's own, for faults the shared Redis must not suffer (paused, full). Each
 * test file passes its own port, so files running at once never share one. Another suite on the same
 * machine may hold that port (two checkouts testing at once): the server that answers must be our own
 * child (its `process_id`), or a test would pause and fill a stranger's server while signalling a child
 * that never bound; then the next port `portStep` up is tried.
 */
export async function startPrivateRedisServer(port: number): Promise<IPrivateRedisServer> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const started = await tryStart(port + attempt * portStep);
    if (started) return started;
  }
  throw new Error(`redis-server: no port of ${port} + ${portStep}k (k < ${attempts}) was ours to bind`);
}

async function tryStart(port: number): Promise<IPrivateRedisServer | undefined> {
  const directory = await mkdtemp(join(tmpdir(), "tollgate-test-redis-"));
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory],
    { stdio: "ignore" },
  );
  const url = `redis://127.0.0.1:${port}`;
  const admin = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  admin.on("error", () => undefined);
  const stop = async () => {
    admin.disconnect();
    if (child.exitCode === null && child.signalCode === null) {
      // A paused server ignores SIGTERM until it runs again.
      child.kill("SIGCONT");
      const exited = once(child, "exit");
      child.kill("SIGKILL");
      await exited;
    }
    await rm(directory, { recursive: true, force: true });
  };
  const answer = await waitUntil(
    async () => {
      // Our child exits at once when the port is taken.
      if (child.exitCode !== null || child.signalCode !== null) return "exited";
      try {
        if (admin.status !== "ready") await admin.connect();
        return serverProcessId(await admin.info("server")) === child.pid ? "ours" : "another";
      } catch {
        return false;
      }
    },
    { timeoutMs: 5_000, message: `redis-server on ${port}` },
  );
  if (answer === "ours") return { url, process: child, admin, stop };
  await stop();
  return undefined;
}

function serverProcessId(info: string): number | undefined {
  const match = /^process_id:(\d+)/m.exec(info);
  return match ? Number(match[1]) : undefined;
}
