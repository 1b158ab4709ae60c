import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { waitUntil } from "../helpers/wait-until.js";

export interface IDurableRedisServer {
  url: string;
  port: number;
  /** The running server process (replaced at each restart). */
  process(): ChildProcess;
  /** A connection of the suite's own (CONFIG SET, DBSIZE); it reconnects after a restart. */
  admin: Redis;
  /** Stops the server with the signal (SIGTERM: it writes its AOF and exits; SIGKILL: it just dies). */
  down(signal: "SIGTERM" | "SIGKILL"): Promise<void>;
  /** Starts it again on the same port and directory (the AOF replays) and waits until it answers. */
  up(): Promise<void>;
  /** Pauses the server for `ms` (SIGSTOP), always resuming it (SIGCONT) even when the wait throws. */
  pause(ms: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A redis-server with `appendonly yes`, as production runs it, that the chaos suite may kill and restart:
 * the same port and the same directory, so what was acknowledged before the restart is read back.
 * `appendfsync always` so that a SIGKILL loses no acknowledged write (with `everysec` up to a second of
 * writes may go, which is a choice of the operator, not a fault of Tollgate).
 */
export async function startDurableRedisServer(port: number): Promise<IDurableRedisServer> {
  const directory = await mkdtemp(join(tmpdir(), "tollgate-chaos-redis-"));
  const url = `redis://127.0.0.1:${port}`;
  const spawnServer = () =>
    spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "yes",
        "--appendfsync",
        "always",
        "--dir",
        directory,
      ],
      { stdio: "ignore" },
    );
  let server = spawnServer();
  const admin = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  admin.on("error", () => undefined);
  const answers = () =>
    waitUntil(
      async () => {
        try {
          if (admin.status === "wait" || admin.status === "end") await admin.connect();
          return (await admin.ping()) === "PONG";
        } catch {
          return false;
        }
      },
      { timeoutMs: 10_000, message: `redis-server on ${port} answers` },
    );
  await answers();
  const kill = async (signal: NodeJS.Signals) => {
    if (server.exitCode !== null || server.signalCode !== null) return;
    const exited = once(server, "exit");
    server.kill("SIGCONT");
    server.kill(signal);
    await exited;
  };
  return {
    url,
    port,
    process: () => server,
    admin,
    async down(signal) {
      await kill(signal);
    },
    async up() {
      server = spawnServer();
      await answers();
    },
    async pause(ms) {
      server.kill("SIGSTOP");
      try {
        await new Promise((resolve) => setTimeout(resolve, ms));
      } finally {
        server.kill("SIGCONT");
      }
    },
    async stop() {
      admin.disconnect();
      await kill("SIGKILL");
      await rm(directory, { recursive: true, force: true });
    },
  };
}
