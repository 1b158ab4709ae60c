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

/**
 * A redis-server of the test's own, for faults the shared Redis must not suffer (paused, full). Each
 * test file passes its own port, so files running at once never share one.
 */
export async function startPrivateRedisServer(port: number): Promise<IPrivateRedisServer> {
  const directory = await mkdtemp(join(tmpdir(), "tollgate-test-redis-"));
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory],
    { stdio: "ignore" },
  );
  const url = `redis://127.0.0.1:${port}`;
  const admin = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  admin.on("error", () => undefined);
  await waitUntil(
    async () => {
      try {
        if (admin.status !== "ready") await admin.connect();
        return (await admin.ping()) === "PONG";
      } catch {
        return false;
      }
    },
    { timeoutMs: 5_000, message: `redis-server on ${port}` },
  );
  return {
    url,
    process: child,
    admin,
    async stop() {
      admin.disconnect();
      if (child.exitCode === null && child.signalCode === null) {
        // A paused server ignores SIGTERM until it runs again.
        child.kill("SIGCONT");
        const exited = once(child, "exit");
        child.kill("SIGKILL");
        await exited;
      }
      await rm(directory, { recursive: true, force: true });
    },
  };
}
